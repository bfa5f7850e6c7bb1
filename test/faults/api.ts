import { expect } from 'vitest';
import type { Json } from '../support/json.ts';
import { sleep } from '../support/poll.ts';
import { startReceiver, verifyStandardSignature, type Receiver } from '../support/receiver.ts';

// The dependency-fault tests (docs/runbook.md, "When a dependency fails") call the public API of a
// cluster of processes (startProcessCluster) while a dependency is down or frozen, and check the
// webhooks of what they wrote with receivers of their own.

/** An answer of the API, with how long it took. */
export interface Answer {
  status: number;
  body: Json;
  headers: Headers;
  ms: number;
}

export type Api = (method: string, path: string, body?: unknown) => Promise<Answer>;

/** Calls `baseUrl` (the gateway's /api/v1) with `key`. A network error is status 0; nothing hangs past `timeoutMs`. */
export function apiOf(baseUrl: string, key: string, timeoutMs = 30_000): Api {
  return async (method, path, body) => {
    const started = Date.now();
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, ms: Date.now() - started };
    } catch (err) {
      return { status: 0, body: { error: String(err) }, headers: new Headers(), ms: Date.now() - started };
    }
  };
}

/** A receiver subscribed (through the API) to `eventNames`, with its subscription's secret. */
export interface Subscriber {
  receiver: Receiver;
  id: string;
  secret: string;
}

export async function subscriber(api: Api, eventNames: string[]): Promise<Subscriber> {
  const receiver = await startReceiver();
  const res = await api('POST', '/webhooks', { destinationUrl: receiver.url, eventNames });
  if (res.status !== 201) {
    await receiver.close();
    throw new Error(`subscribe answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return { receiver, id: res.body.id, secret: res.body.hmacSecret };
}

/** A project to write entries into (the API must answer 201). */
export async function createProject(api: Api, name: string): Promise<string> {
  const res = await api('POST', '/projects', { name, description: 'for the fault tests' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Creates an entry (the write of these tests: it emits entry.created); returns its id (the API must answer 201). */
export async function createEntry(api: Api, projectId: string, title: string): Promise<string> {
  const res = await api('POST', `/projects/${projectId}/entries`, {
    type: 'feedback',
    title,
    description: 'written during a fault',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** How many verified deliveries of entry.created each entry id got at `s`. */
export function arrivalsOf(s: Subscriber): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of s.receiver.received) {
    expect(verifyStandardSignature(s.secret, r)).toBe(true);
    if (r.body?.eventName !== 'entry.created') continue;
    const id = String(r.body.entityId);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Waits (bounded) until every entry of `ids` arrived at every subscriber, then a quiet while more,
 * and asserts each arrived exactly once per subscription: nothing lost, nothing sent twice.
 */
export async function expectExactlyOnce(subscribers: Subscriber[], ids: string[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const all = () => subscribers.every((s) => ids.every((id) => arrivalsOf(s).has(id)));
  while (!all() && Date.now() < deadline) await sleep(200);
  await sleep(2000); // a duplicate would come now
  for (const s of subscribers) {
    const counts = arrivalsOf(s);
    expect(
      ids.map((id) => counts.get(id) ?? 0),
      `deliveries per entry at subscription ${s.id}`,
    ).toEqual(ids.map(() => 1));
  }
}

/** GET /readyz of a service's port. */
export async function readyz(port: number): Promise<{ status: number; body: Json }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.json() };
  } catch (err) {
    return { status: 0, body: { error: String(err) } };
  }
}
