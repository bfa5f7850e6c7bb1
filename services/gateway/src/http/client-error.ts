import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError } from '@cluster/platform';

/**
 * The error for a request Node's HTTP parser refused before any middleware ran: a request line and headers
 * over the header limit (a URL with a 100k query string) is 431, a request not received in time 408, anything
 * else that is not HTTP/1.1 400. These are Node's own statuses; only the body changes.
 */
export function parserRefusal(err: Error & { code?: string }): DomainError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('headers_too_large', `the request line and headers are larger than ${maxHeaderSize} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('request_timeout', 'the request was not received in time');
    default:
      return new DomainError('validation_error', 'the request is not valid HTTP/1.1');
  }
}

/** A refusal as raw HTTP/1.1 bytes (there is no Koa context yet): the spec's error body, then the connection closes. */
export function refusalResponse(err: DomainError): string {
  const body = JSON.stringify({ reason: err.reason, message: err.message });
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The HTTP server's `clientError` listener: answers what Node would answer with an empty body (431, 408, 400)
 * in the spec's error shape instead. A connection the client reset, or one no longer writable, is only closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(refusalResponse(parserRefusal(err)));
}
