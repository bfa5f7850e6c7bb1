import { describe, expect, it } from 'vitest';
import { endEventStreams, eventStream, formatEvent, type ServerSentEvent } from './event-stream.ts';

/** A source of events the test hands out one by one, and whether it was closed. */
function source() {
  const waiting: ((r: IteratorResult<ServerSentEvent>) => void)[] = [];
  let closed = false;
  const rest: AsyncIterator<ServerSentEvent> = { next: () => new Promise((resolve) => waiting.push(resolve)) };
  return {
    rest,
    close: () => void (closed = true),
    closed: () => closed,
    send: (e: ServerSentEvent) => waiting.shift()!({ value: e, done: false }),
    end: () => waiting.shift()!({ value: undefined, done: true }),
  };
}

/** Everything a stream wrote until it ended. */
async function textOf(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

describe('event-stream', () => {
  it('formats an event with its type, id and one data line per line', () => {
    expect(formatEvent({ event: 'delivery', id: 'd1', data: Buffer.from('{"a":1}') })).toBe(
      'event: delivery\nid: d1\ndata: {"a":1}\n\n',
    );
    expect(formatEvent({ event: 'ready', data: 'one\ntwo' })).toBe('event: ready\ndata: one\ndata: two\n\n');
  });

  it('writes the first event, then each as it comes, with pings, until the source ends', async () => {
    const s = source();
    const stream = eventStream({ event: 'ready', data: '{}' }, s.rest, s.close, 5);
    const text = textOf(stream);
    await new Promise((resolve) => setTimeout(resolve, 20));
    s.send({ event: 'delivery', id: 'd1', data: '{"n":1}' });
    await new Promise((resolve) => setImmediate(resolve));
    s.end();
    const written = await text;
    expect(written).toContain(': ping\n\n');
    // Pings come every 5 ms, so one may fall anywhere after the first event: the events, pings aside, in order.
    expect(written.replaceAll(': ping\n\n', '')).toBe('event: ready\ndata: {}\n\nevent: delivery\nid: d1\ndata: {"n":1}\n\n');
    expect(s.closed()).toBe(true);
  });

  it('ends cleanly when the gateway stops, and closes its source once', async () => {
    const s = source();
    const stream = eventStream({ event: 'ready', data: '{}' }, s.rest, s.close);
    const text = textOf(stream);
    endEventStreams();
    expect(await text).toBe('event: ready\ndata: {}\n\n');
    expect(s.closed()).toBe(true);
  });

  it('closes its source when the client goes away (destroyed)', () => {
    const s = source();
    eventStream({ event: 'ready', data: '{}' }, s.rest, s.close).destroy();
    expect(s.closed()).toBe(true);
  });
});
