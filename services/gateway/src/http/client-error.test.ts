import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError, parserRefusal } from './client-error.ts';

/** A bare HTTP server with the gateway's clientError listener; every request it does parse is 204. */
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(204).end());
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Writes raw bytes to the server and reads everything it answers until it closes the connection. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The status line's code and the parsed body of a raw answer. */
function parse(answer: string): { status: number; type: string; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n');
  const type = /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '';
  return { status: Number(head.split(' ')[1]), type, body: JSON.parse(body) };
}

describe('answerClientError', () => {
  it('a request line over the header limit (a 100k query string) is 431 in the spec error shape', async () => {
    const res = parse(await exchange(`GET /api/v1/projects?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      reason: 'headers_too_large',
      message: `the request line and headers are larger than ${http.maxHeaderSize} bytes`,
    });
  });

  it('bytes that are not HTTP/1.1 are 400 validation_error in the spec error shape', async () => {
    const res = parse(await exchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'validation_error', message: 'the request is not valid HTTP/1.1' });
  });
});

describe('parserRefusal', () => {
  it("keeps Node's statuses: 408 for a request not received in time", () => {
    const timeout = Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(parserRefusal(timeout).status).toBe(408);
    expect(parserRefusal(timeout).reason).toBe('request_timeout');
  });
});
