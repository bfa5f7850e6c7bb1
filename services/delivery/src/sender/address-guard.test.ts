import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDestination, forbiddenAddressReason } from './address-guard.ts';
import { createHttpSender } from './http-sender.ts';

describe('forbidden addresses', () => {
  it('refuses loopback, private, link-local, metadata and reserved ranges, v4 and v6', () => {
    for (const a of [
      '127.0.0.1',
      '127.9.9.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '168.63.129.16',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
    ]) {
      expect(forbiddenAddressReason(a), a).toBeDefined();
    }
    expect(forbiddenAddressReason('169.254.169.254')).toBe('metadata');
  });

  it('allows public addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(forbiddenAddressReason(a), a).toBeUndefined();
  });

  it('checks destinations at create time: scheme, https in production, IP literals and local names', async () => {
    const opts = { production: false, allowPrivate: false };
    expect(await checkDestination('https://8.8.8.8/h', opts)).toBeUndefined();
    expect(await checkDestination('http://127.0.0.1:8080/h', opts)).toMatch(/loopback/);
    expect(await checkDestination('http://[::1]/h', opts)).toMatch(/loopback/);
    expect(await checkDestination('http://169.254.169.254/latest/meta-data', opts)).toMatch(/metadata/);
    expect(await checkDestination('http://localhost/h', opts)).toMatch(/loopback/);
    expect(await checkDestination('ftp://8.8.8.8/h', opts)).toMatch(/http/);
    expect(await checkDestination('http://8.8.8.8/h', { production: true, allowPrivate: false })).toMatch(/https/);
    expect(await checkDestination('http://user:pw@8.8.8.8/h', opts)).toMatch(/credentials/);
    expect(await checkDestination('http://127.0.0.1/h', { production: false, allowPrivate: true })).toBeUndefined();
  });
});

describe('sender guard at connect time', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const sender = (allowPrivate: boolean, production = false) =>
    createHttpSender({ timeoutMs: 1000, allowPrivate, production, maxResponseBytes: 65536, connectionsPerOrigin: 2 });

  it('refuses a loopback IP literal and a name that resolves to loopback, without connecting', async () => {
    const s = sender(false);
    const byIp = await s.send(`http://127.0.0.1:${port}/h`, {}, '{}');
    expect(byIp).toMatchObject({ ok: false, responseCode: null, error: expect.stringMatching(/loopback/) });
    const byName = await s.send(`http://localhost:${port}/h`, {}, '{}');
    expect(byName).toMatchObject({ ok: false, responseCode: null, error: expect.stringMatching(/refused/) });
    expect(hits).toBe(0);
    await s.close();
  });

  it('connects when private destinations are allowed, and refuses plain http in production', async () => {
    const s = sender(true);
    expect(await s.send(`http://localhost:${port}/h`, {}, '{}')).toMatchObject({
      ok: true,
      responseCode: 200,
      responseBody: 'ok',
    });
    await s.close();
    const prod = sender(true, true);
    expect(await prod.send(`http://127.0.0.1:${port}/h`, {}, '{}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/https/),
    });
    await prod.close();
  });
});
