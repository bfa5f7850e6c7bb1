import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { checkDestination, forbiddenAddressReason } from './address-guard.ts';
import { createHttpSender } from './http-sender.ts';

// Every spelling the guard must judge, with the reason it gives (undefined: allowed). One address written several ways
// gets one answer, because the guard classifies parsed bytes, not text.
const TABLE: [address: string, reason: string | undefined][] = [
  // IPv4
  ['127.0.0.1', 'loopback'],
  ['127.9.9.9', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private (carrier-grade NAT)'],
  ['100.127.255.255', 'private (carrier-grade NAT)'],
  ['169.254.169.254', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['169.254.1.1', 'link-local or metadata'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  // IPv6
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fc00::1', 'private (unique local)'],
  ['fd00:ec2::254', 'private (unique local)'],
  ['FD12:3456::1', 'private (unique local)'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001:0db8:ffff::1', 'documentation'],
  ['3fff::1', 'documentation'],
  // IPv4-mapped (::ffff:0:0/96)
  ['::ffff:127.0.0.1', 'loopback 127.0.0.1 via IPv4-mapped'],
  ['::ffff:7f00:1', 'loopback 127.0.0.1 via IPv4-mapped'],
  ['0:0:0:0:0:ffff:127.0.0.1', 'loopback 127.0.0.1 via IPv4-mapped'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback 127.0.0.1 via IPv4-mapped'],
  ['::FFFF:7F00:1', 'loopback 127.0.0.1 via IPv4-mapped'],
  ['::ffff:10.0.0.1', 'private 10.0.0.1 via IPv4-mapped'],
  ['::ffff:a9fe:a9fe', 'metadata 169.254.169.254 via IPv4-mapped'],
  ['::ffff:192.0.2.1', 'documentation 192.0.2.1 via IPv4-mapped'],
  ['::ffff:8.8.8.8', undefined],
  ['::ffff:808:808', undefined],
  // IPv4-compatible (::/96, deprecated: refused even with a public IPv4 inside)
  ['::7f00:1', 'loopback 127.0.0.1 via IPv4-compatible'],
  ['::127.0.0.1', 'loopback 127.0.0.1 via IPv4-compatible'],
  ['0:0:0:0:0:0:127.0.0.1', 'loopback 127.0.0.1 via IPv4-compatible'],
  ['::a9fe:a9fe', 'metadata 169.254.169.254 via IPv4-compatible'],
  ['::2', 'unspecified 0.0.0.2 via IPv4-compatible'],
  ['::8.8.8.8', 'reserved (IPv4-compatible)'],
  ['::808:808', 'reserved (IPv4-compatible)'],
  // IPv4-translated (::ffff:0:0:0/96, deprecated: refused even with a public IPv4 inside)
  ['::ffff:0:7f00:1', 'loopback 127.0.0.1 via IPv4-translated'],
  ['::ffff:0:127.0.0.1', 'loopback 127.0.0.1 via IPv4-translated'],
  ['0:0:0:0:ffff:0:a00:1', 'private 10.0.0.1 via IPv4-translated'],
  ['::ffff:0:808:808', 'reserved (IPv4-translated)'],
  // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, IPv4 in the last 32 bits)
  ['64:ff9b::a9fe:a9fe', 'metadata 169.254.169.254 via NAT64'],
  ['64:ff9b::127.0.0.1', 'loopback 127.0.0.1 via NAT64'],
  ['64:ff9b::c000:201', 'documentation 192.0.2.1 via NAT64'],
  ['64:ff9b:1::a00:1', 'private 10.0.0.1 via NAT64'],
  ['64:ff9b:1:ffff::192.168.0.1', 'private 192.168.0.1 via NAT64'],
  ['64:ff9b::808:808', undefined],
  ['64:ff9b::8.8.8.8', undefined],
  ['64:ff9b:1::101:101', undefined],
  // 6to4 (2002::/16, IPv4 in bits 16-47)
  ['2002:7f00:1::1', 'loopback 127.0.0.1 via 6to4'],
  ['2002:a9fe:a9fe::', 'metadata 169.254.169.254 via 6to4'],
  ['2002:c0a8:101:1::1', 'private 192.168.1.1 via 6to4'],
  ['2002:cb00:7101::1', 'documentation 203.0.113.1 via 6to4'],
  ['2002:808:808::1', undefined],
  // Teredo (2001::/32, client IPv4 in the last 32 bits, inverted)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback 127.0.0.1 via Teredo'],
  ['2001::f5ff:fffe', 'private 10.0.0.1 via Teredo'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata 169.254.169.254 via Teredo'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', undefined],
  // special-purpose ranges not globally reachable, named by ipaddr.js's range() (issue 37)
  ['192.88.99.1', 'special-purpose (reserved), not globally reachable'],
  ['100::1', 'special-purpose (discard), not globally reachable'],
  ['2001:2::1', 'special-purpose (benchmarking), not globally reachable'],
  ['2001:10::1', 'special-purpose (deprecatedOrchid), not globally reachable'],
  ['5f00::1', 'special-purpose (segmentRouting), not globally reachable'],
  ['2001:5::1', 'special-purpose (reserved), not globally reachable'],
  ['::ffff:192.88.99.1', 'special-purpose (reserved), not globally reachable 192.88.99.1 via IPv4-mapped'],
  // special-purpose ranges that are globally reachable (IANA): allowed
  ['192.31.196.1', undefined],
  ['192.52.193.1', undefined],
  ['192.175.48.1', undefined],
  ['2001:3::1', undefined],
  ['2001:4:112::1', undefined],
  ['2001:20::1', undefined],
  ['2620:4f:8000::1', undefined],
  // public
  ['8.8.8.8', undefined],
  ['1.1.1.1', undefined],
  ['172.32.0.1', undefined],
  ['100.128.0.1', undefined],
  ['2606:4700:4700::1111', undefined],
  ['2001:4860:4860::8888', undefined],
  ['2a00:1450:4001:82b::200e', undefined],
  // not IP addresses (forms the URL parser normalises before they reach the guard)
  ['0177.0.0.1', 'not an IP address'],
  ['2130706433', 'not an IP address'],
  ['localhost', 'not an IP address'],
];

describe('forbidden addresses', () => {
  it.each(TABLE)('%s: %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
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

  it('refuses URL literals whatever the spelling of the address: the URL parser normalises, the guard reads bytes', async () => {
    const opts = { production: false, allowPrivate: false };
    for (const [url, reason] of [
      ['http://[::127.0.0.1]/h', 'points to a loopback 127.0.0.1 via IPv4-compatible address'],
      ['http://[::ffff:7f00:1]/h', 'points to a loopback 127.0.0.1 via IPv4-mapped address'],
      ['http://[0:0:0:0:0:ffff:127.0.0.1]/h', 'points to a loopback 127.0.0.1 via IPv4-mapped address'],
      ['http://[::ffff:0:7f00:1]/h', 'points to a loopback 127.0.0.1 via IPv4-translated address'],
      ['http://[64:ff9b::169.254.169.254]/latest', 'points to a metadata 169.254.169.254 via NAT64 address'],
      ['http://[2002:a00:1::1]/h', 'points to a private 10.0.0.1 via 6to4 address'],
      ['http://[2001::f5ff:fffe]/h', 'points to a private 10.0.0.1 via Teredo address'],
      ['http://[2001:db8::1]/h', 'points to a documentation address'],
      ['http://192.0.2.1/h', 'points to a documentation address'],
      ['http://0177.0.0.1/h', 'points to a loopback address'],
      ['http://2130706433/h', 'points to a loopback address'],
      ['http://0x7f.1/h', 'points to a loopback address'],
    ]) {
      expect(await checkDestination(url, opts), url).toBe(reason);
    }
    expect(await checkDestination('https://[::ffff:8.8.8.8]/h', opts)).toBeUndefined();
    expect(await checkDestination('https://[2606:4700:4700::1111]/h', opts)).toBeUndefined();
    expect(await checkDestination('http://[::127.0.0.1]/h', { production: false, allowPrivate: true })).toBeUndefined();
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
    expect(byIp).toMatchObject({ ok: false, responseCode: null, error: match.stringMatching(/loopback/) });
    const byName = await s.send(`http://localhost:${port}/h`, {}, '{}');
    expect(byName).toMatchObject({ ok: false, responseCode: null, error: match.stringMatching(/refused/) });
    const byMapped = await s.send(`http://[::ffff:127.0.0.1]:${port}/h`, {}, '{}');
    expect(byMapped).toMatchObject({
      ok: false,
      responseCode: null,
      error: match.stringMatching(/loopback 127\.0\.0\.1 via IPv4-mapped/),
    });
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
      error: match.stringMatching(/https/),
    });
    await prod.close();
  });
});
