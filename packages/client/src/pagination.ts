import type { WithResponse } from './api-promise.ts';

/** One page of a list endpoint: `{data, page, pageSize, total}` (all four always present). */
export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
}

/**
 * A page as `pages()` yields it: the answer's `X-Request-Id` beside the four fields. Not
 * enumerable, so JSON and equality see the page as the API sent it.
 */
export type ResponsePage<T> = Page<T> & { readonly requestId: string | undefined };

/**
 * Every item of a paged list, fetched page by page as it is iterated
 * (`for await (const entry of client.entries.list(projectId))`). `pages()` yields whole pages
 * (with `total` and each answer's `requestId`); `toArray()` collects everything. Each iteration
 * starts again from page 1.
 */
export interface PageIterator<T> extends AsyncIterable<T> {
  pages(): AsyncIterable<ResponsePage<T>>;
  toArray(): Promise<T[]>;
}

/** The pages of `fetchPage`, from 1 until one comes back short, empty, or reaches `total`. */
export function pageIterator<T>(fetchPage: (page: number) => Promise<WithResponse<Page<T>>>): PageIterator<T> {
  async function* pages(): AsyncGenerator<ResponsePage<T>> {
    for (let page = 1; ; page++) {
      const { data: result, requestId } = await fetchPage(page);
      yield Object.defineProperty(result, 'requestId', { value: requestId, enumerable: false }) as ResponsePage<T>;
      const seen = (result.page - 1) * result.pageSize + result.data.length;
      if (result.data.length === 0 || result.data.length < result.pageSize || seen >= result.total) return;
    }
  }
  async function* items(): AsyncGenerator<T> {
    for await (const page of pages()) yield* page.data;
  }
  return {
    [Symbol.asyncIterator]: items,
    pages,
    async toArray() {
      const all: T[] = [];
      for await (const item of items()) all.push(item);
      return all;
    },
  };
}
