import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, verify } from '@cluster/webhook-verify';
import { forward, forwardedLine, type StreamedDelivery } from './forward.ts';

const SECRET = `whsec_${Buffer.from('a local listener secret 32 bytes').toString('base64')}`;
const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let status = 200;
let url: string;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    got.push({ headers: req.headers, body });
    res.writeHead(status).end('ok');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A delivery as the stream carries it, signed with `secret`. */
function delivery(secret = SECRET): StreamedDelivery {
  const body = JSON.stringify({ id: 'd-1', eventName: 'entry.created', payload: { title: 'é' } });
  return {
    deliveryId: 'd-1',
    eventName: 'entry.created',
    body,
    headers: sign(body, secret, { id: 'd-1', eventName: 'entry.created' }),
  };
}

describe('forward', () => {
  it('posts the exact body with the signed headers, so the receiver verifies it; answers status and latency', async () => {
    const d = delivery();
    const f = await forward(url, d, SECRET);
    expect([f.status, typeof f.ms, f.error]).toEqual([200, 'number', undefined]);
    const last = got.at(-1)!;
    expect(last.body).toBe(d.body);
    expect(verify(last.body, last.headers as Record<string, string>, SECRET, { scheme: 'both' })).toMatchObject({ id: 'd-1' });
    expect(forwardedLine(d, f)).toMatch(/^→ 200 entry.created \d+ ms d-1$/);
  });

  it('shows the receiver’s failure status, and a receiver that cannot be reached', async () => {
    status = 500;
    expect(await forward(url, delivery(), SECRET)).toMatchObject({ status: 500 });
    status = 200;
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await forward(`http://127.0.0.1:${port}/hooks`, delivery(), SECRET);
    expect(down).toMatchObject({ status: null, error: 'ECONNREFUSED' });
    expect(forwardedLine(delivery(), down)).toMatch(/^→ ERR entry.created \d+ ms d-1 \(ECONNREFUSED\)$/);
  });

  it('forwards nothing whose signature does not verify with the listener’s secret', async () => {
    const before = got.length;
    const f = await forward(url, delivery(`whsec_${Buffer.from('another secret of thirty-two b!!').toString('base64')}`), SECRET);
    expect(f.status).toBeNull();
    expect(f.error).toMatch(/^not forwarded: the signature does not verify/);
    expect(got.length).toBe(before);
  });
});
