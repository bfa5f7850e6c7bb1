import { describe, expect, it } from 'vitest';
import { parseEventStream, type ServerSentEvent } from './sse.ts';

/** The events of a body given in these chunks. */
async function eventsOf(...chunks: (string | Uint8Array)[]): Promise<ServerSentEvent[]> {
  async function* body() {
    for (const c of chunks) yield typeof c === 'string' ? new TextEncoder().encode(c) : c;
  }
  const out: ServerSentEvent[] = [];
  for await (const e of parseEventStream(body())) out.push(e);
  return out;
}

describe('parseEventStream', () => {
  it('reads named events with their id and data, skipping comments (the gateway’s pings)', async () => {
    expect(
      await eventsOf('event: ready\ndata: {"secret":"whsec_x"}\n\n: ping\n\nevent: delivery\nid: d1\ndata: {"a":1}\n\n'),
    ).toEqual([
      { event: 'ready', data: '{"secret":"whsec_x"}' },
      { event: 'delivery', id: 'd1', data: '{"a":1}' },
    ]);
  });

  it('joins data lines, names an unnamed event `message`, and takes CRLF, CR and no space after the colon', async () => {
    expect(await eventsOf('data:one\r\ndata: two\r\r\ndata: three\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: 'three' },
    ]);
  });

  it('holds lines, CRLFs and multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('event: delivery\r\ndata: {"t":"é→"}\r\n\r\n');
    const chunks = [...bytes].map((b) => new Uint8Array([b])); // one byte at a time
    expect(await eventsOf(...chunks)).toEqual([{ event: 'delivery', data: '{"t":"é→"}' }]);
  });

  it('drops an event with no data, and one cut off before its blank line', async () => {
    expect(await eventsOf('event: ready\n\nevent: delivery\ndata: {}\n')).toEqual([]);
  });
});
