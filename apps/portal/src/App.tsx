import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { fetchSession, messageOf, signOut } from './api.ts';
import { Deliveries } from './pages/Deliveries.tsx';
import { Endpoints } from './pages/Endpoints.tsx';
import { Events } from './pages/Events.tsx';
import { Health } from './pages/Health.tsx';
import { Failure, Loading } from './ui.tsx';

const PAGES = ['Endpoints', 'Event catalogue', 'Delivery log', 'Health'] as const;
type PageName = (typeof PAGES)[number];
type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = localStorage.getItem('portal-theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function App() {
  const [page, setPage] = useState<PageName>(() => {
    const fromHash = decodeURIComponent(window.location.hash.slice(1));
    return (PAGES as readonly string[]).includes(fromHash) ? (fromHash as PageName) : 'Endpoints';
  });
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('portal-theme', theme);
  }, [theme]);
  useEffect(() => {
    window.location.hash = encodeURIComponent(page);
  }, [page]);
  const queries = useQueryClient();
  const [signedOut, setSignedOut] = useState(false);
  const session = useQuery({ queryKey: ['session'], queryFn: fetchSession, retry: false, enabled: !signedOut });
  // Sign out: the session ends server-side; then the pages unmount and their queries are dropped, so none
  // keeps polling with a dead cookie.
  const leave = useMutation({ mutationFn: signOut, onSuccess: () => setSignedOut(true) });
  useEffect(() => {
    if (signedOut) queries.clear();
  }, [signedOut, queries]);

  if (signedOut) return <SignedOut />;

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <h1>Webhooks</h1>
        <nav aria-label="Portal pages">
          {PAGES.map((p) => (
            <button key={p} type="button" aria-current={p === page ? 'page' : undefined} onClick={() => setPage(p)}>
              {p}
            </button>
          ))}
        </nav>
        <div className="header-end">
          {session.data && (
            <span className="session">
              {session.data.access === 'read-only' ? 'Read-only' : 'Manage'} · until{' '}
              {new Date(session.data.expiresAt).toLocaleTimeString()}
            </span>
          )}
          <button
            type="button"
            onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
            aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          >
            {theme === 'dark' ? '☀ Light' : '☾ Dark'}
          </button>
          {session.data && (
            <button type="button" onClick={() => leave.mutate()} disabled={leave.isPending}>
              {leave.isPending ? 'Signing out…' : 'Sign out'}
            </button>
          )}
        </div>
      </header>
      {leave.isError && (
        <p className="state error" role="alert">
          Could not sign out: {messageOf(leave.error)}
        </p>
      )}
      <main id="main">
        {session.isPending && <Loading what="your session" />}
        {session.isError && <Failure what="your session" error={session.error} />}
        {session.data &&
          (session.data.scope === 'project' ? (
            <p className="state">
              This session is for one project. Webhook endpoints belong to the organization, so there is nothing here to manage
              yet; ask for an organization link.
            </p>
          ) : (
            <>
              {page === 'Endpoints' && <Endpoints canWrite={session.data.access === 'manage'} />}
              {page === 'Event catalogue' && <Events canWrite={session.data.access === 'manage'} />}
              {page === 'Delivery log' && <Deliveries canWrite={session.data.access === 'manage'} />}
              {page === 'Health' && <Health />}
            </>
          ))}
      </main>
    </>
  );
}

/** What is left after "Sign out": the session has ended on the server and its cookies are gone. */
function SignedOut() {
  return (
    <main id="main">
      <h1>Signed out</h1>
      <p className="state" role="status">
        Your portal session has ended. To manage your webhooks again, open a new portal link from the product that sent you here.
      </p>
    </main>
  );
}
