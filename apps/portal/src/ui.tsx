import type { ReactNode } from 'react';
import { messageOf } from './api.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status">
      Loading {what}…
    </p>
  );
}

export function Failure({ error, retry, what }: { error: unknown; retry?: () => void; what: string }) {
  return (
    <div className="state error" role="alert">
      <p>
        Could not load {what}: {messageOf(error)}
      </p>
      <p>If your session has expired, ask for a new portal link.</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section aria-labelledby={`h-${title}`}>
      <div className="section-head">
        <h2 id={`h-${title}`}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** Previous and next for a paged list (page from 1, `total` items in all; docs/decisions-api.md, paging). */
export function Pager({
  what,
  page,
  pageSize,
  total,
  onPage,
}: {
  what: string;
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages === 1) return null;
  return (
    <nav className="pager" aria-label={`Pages of ${what}`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span role="status">
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
