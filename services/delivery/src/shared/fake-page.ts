import type { Page, PageArgs } from '@cluster/platform';

/** Newest first, as the spec orders lists (createdAt desc, id desc). */
function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** One page of rows already filtered, in list order, as copies: what `paginate` answers, for the fake stores. */
export function fakePage<T extends { createdAt: Date; id: string }>(all: T[], { page, pageSize }: PageArgs): Page<T> {
  const sorted = [...all].sort(newestFirst);
  return { data: sorted.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })), page, pageSize, total: all.length };
}
