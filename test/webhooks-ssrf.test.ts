import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// The production default: private, loopback, link-local and metadata destinations are refused.
let c: TestCluster;
let org: SeededOrg;
let r: Receiver;

beforeAll(async () => {
  c = await startTestCluster({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'false' } });
  org = await c.seedOrg('SSRF Org');
  r = await startReceiver();
});
afterAll(async () => {
  await r?.close();
  await c?.stop();
});

describe('destination safety (WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=false)', () => {
  it('refuses loopback, private, link-local and metadata destinations at create and update with validation_error', async () => {
    for (const url of [
      r.url,
      'http://localhost:8080/h',
      'http://10.0.0.5/h',
      'http://192.168.1.10/h',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/h',
    ]) {
      const res = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: url, eventNames: ['api_key.created'] });
      expect(res.status, url).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(res.body.details.errors[0].path).toBe('/destinationUrl');
    }
    const ok = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: 'https://8.8.8.8/hooks',
      eventNames: ['api_key.created'],
    });
    expect(ok.status).toBe(201);
    const patched = await c.api(org.key, 'PATCH', `/webhooks/${ok.body.id}`, { destinationUrl: 'http://127.0.0.1:9/h' });
    expect(patched.status).toBe(400);
    expect(patched.body.reason).toBe('validation_error');
    expect(r.received).toHaveLength(0);
  });

  it('refuses other spellings of loopback, private and metadata addresses, and documentation ranges', async () => {
    for (const [url, message] of [
      ['http://[::127.0.0.1]/h', 'loopback 127.0.0.1 via IPv4-compatible'],
      ['http://[::ffff:7f00:1]/h', 'loopback 127.0.0.1 via IPv4-mapped'],
      ['http://[0:0:0:0:0:ffff:127.0.0.1]/h', 'loopback 127.0.0.1 via IPv4-mapped'],
      ['http://[::ffff:0:7f00:1]/h', 'loopback 127.0.0.1 via IPv4-translated'],
      ['http://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'metadata 169.254.169.254 via NAT64'],
      ['http://[2002:a00:1::1]/h', 'private 10.0.0.1 via 6to4'],
      ['http://[2001::f5ff:fffe]/h', 'private 10.0.0.1 via Teredo'],
      ['https://192.0.2.10/h', 'documentation'],
      ['https://[2001:db8::10]/h', 'documentation'],
      // Special-purpose ranges that are not globally reachable (issue 37), from ipaddr.js's range().
      ['https://192.88.99.1/h', 'special-purpose (reserved)'],
      ['https://[100::1]/h', 'special-purpose (discard)'],
      ['https://[2001:2::1]/h', 'special-purpose (benchmarking)'],
      ['https://[2001:10::1]/h', 'special-purpose (deprecatedOrchid)'],
    ]) {
      const res = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: url, eventNames: ['api_key.created'] });
      expect(res.status, url).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(res.body.details.errors[0].path).toBe('/destinationUrl');
      expect(JSON.stringify(res.body.details.errors[0]), url).toContain(message);
    }
    expect(r.received).toHaveLength(0);
  });
});
