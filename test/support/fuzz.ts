import { expect } from 'vitest';

/**
 * What the fuzz tests over real HTTP share (test/fuzz.test.ts: the REST routes; test/mcp-fuzz.test.ts:
 * the tool-protocol endpoint): the seed and case count (`npm test` runs the defaults, `npm run fuzz`
 * sets FUZZ_SEED and FUZZ_RUNS), reading an answer's JSON, the spec's error body, and a failed run's report.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 18);
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 15);

/** An answer as read off the wire. */
export interface WireAnswer {
  status: number;
  type: string;
  text: string;
}

/** Reads the whole answer of a fetch. */
export async function wireAnswer(res: Response): Promise<WireAnswer> {
  const type = res.headers.get('content-type') ?? '';
  // A stream (GET /webhooks/listen) never ends: its answer is its status and type, and it is closed at once
  // (which removes the listener's temporary subscription; test/cli-listen.test.ts reads one).
  if (type.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, type, text: '' };
  }
  return { status: res.status, type, text: await res.text() };
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON body of an answer, or a failure that says what came instead. */
export function jsonOf(answer: WireAnswer, where: string): unknown {
  expect(answer.type, `${where}: content-type`).toMatch(/^application\/json/);
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new Error(`${where}: the body is not JSON`);
  }
}

/** The spec's error body: an object `{reason: string, message: string, details?: object}`. */
export function expectSpecError(body: unknown, where: string): void {
  expect(isObject(body), `${where}: an object`).toBe(true);
  const e = body as Record<string, unknown>;
  expect(typeof e.reason, where).toBe('string');
  expect(typeof e.message, where).toBe('string');
  if (e.details !== undefined) expect(isObject(e.details), `${where}: details`).toBe(true);
}

/** A value as a failure reports it: cut at 400 characters, so that a 100k string does not bury the message. */
export const cut = (s: string): string => (s.length > 400 ? `${s.slice(0, 400)}... (${s.length} chars)` : s);

/** A failed fast-check run as an error: its cause, the request that failed, and how to replay it. */
export function fuzzFailure(run: { errorInstance: unknown }, request: string, replay: string): Error {
  const cause = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
  return new Error(`${cause}\n  request: ${request}\n  replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS} ${replay}`);
}
