/** One server-sent event as received: its type (`message` when unnamed), its data lines joined, its id. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of a text/event-stream body, as the HTML standard parses them
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * lines end in LF, CR or CRLF; `field: value` (one optional space after the colon), a line starting
 * with `:` is a comment (the gateway's `: ping`); a blank line dispatches the event, unless it has no
 * data. Chunks may split a line, a CRLF or a multi-byte character anywhere.
 */
export async function* parseEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let id: string | undefined;
  let data: string[] = [];
  /** Handles one complete line; an event when it dispatched one. */
  const line = (text: string): ServerSentEvent | undefined => {
    if (text === '') {
      const done = data.length ? { event: event || 'message', data: data.join('\n'), ...(id ? { id } : {}) } : undefined;
      event = '';
      data = [];
      return done;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + (text[colon + 1] === ' ' ? 2 : 1));
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    return undefined;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (end < 0 || (buffer[end] === '\r' && end === buffer.length - 1)) break;
      const text = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      const e = line(text);
      if (e) yield e;
    }
  }
  // An event not followed by its blank line when the stream ended is dropped, as the standard says.
}
