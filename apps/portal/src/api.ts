import { createClient } from '../../../packages/client/src/client.ts';
import { ApiError } from '../../../packages/client/src/errors.ts';

export { ApiError };

/** The session's CSRF token, from the cookie the portal's start link set (docs/portal.md). */
function csrfToken(): string {
  const pair = document.cookie.split('; ').find((c) => c.startsWith('portal_csrf='));
  return pair ? pair.slice('portal_csrf='.length) : '';
}

/**
 * The SDK (packages/client) over the portal's API: every /api/v1 path is sent to /portal/api/v1
 * with the session's cookie instead of a key, and a write carries the CSRF token.
 */
export const client = createClient({
  baseUrl: window.location.origin,
  maxRetries: 1,
  timeoutMs: 20_000,
  fetch: async (request: Request) => {
    const url = new URL(request.url);
    url.pathname = url.pathname.replace(/^\/api\/v1\//, '/portal/api/v1/');
    const headers = new Headers(request.headers);
    const write = request.method !== 'GET' && request.method !== 'HEAD';
    if (write) headers.set('x-portal-csrf', csrfToken());
    const body = write ? await request.text() : undefined;
    return fetch(url, {
      method: request.method,
      headers,
      body: body || undefined,
      credentials: 'same-origin',
      signal: request.signal,
    });
  },
});

export interface Session {
  access: 'read-only' | 'manage';
  expiresAt: string;
  organizationId: string;
  scope: 'organization' | 'project';
  projectId: string | null;
  permissions: string[];
}

export async function fetchSession(): Promise<Session> {
  const res = await fetch('/portal/session', { credentials: 'same-origin' });
  const body = (await res.json()) as Session & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}

/**
 * Ends the session server-side (POST /portal/logout, a write: the CSRF token, from this origin), which
 * clears both cookies (docs/portal.md, "Ending a session"). A session that had already ended (401) is
 * signed out all the same; any other failure is thrown.
 */
export async function signOut(): Promise<void> {
  const res = await fetch('/portal/logout', {
    method: 'POST',
    headers: { 'x-portal-csrf': csrfToken() },
    credentials: 'same-origin',
  });
  if (res.ok || res.status === 401) return;
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  throw new Error(body.message ?? `HTTP ${res.status}`);
}

/** What an error says to the person in front of the page. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.status} ${err.reason})`;
  return err instanceof Error ? err.message : String(err);
}
