import { describe, expect, it } from 'vitest';
import type { GatewayContext } from './context.ts';
import { portalWriteOrigin } from './portal.ts';

// The origin a portal write must come from (docs/portal.md, "Opening a link: the session cookie").
const request = (host: string, protocol = 'http') => ({ host, protocol }) as GatewayContext;

describe('portalWriteOrigin', () => {
  it('is the configured public origin, whatever Host the request names', () => {
    const publicUrl = 'https://api.example.com';
    // Behind a TLS terminator the request is plain http to an internal host: the browser's Origin is the public one.
    expect(portalWriteOrigin(publicUrl, request('gateway.internal:8080'))).toBe('https://api.example.com');
    // A made-up Host does not make its own origin acceptable.
    expect(portalWriteOrigin(publicUrl, request('evil.example', 'https'))).toBe('https://api.example.com');
    expect(portalWriteOrigin('https://api.example.com:8443', request('127.0.0.1:8080'))).toBe('https://api.example.com:8443');
  });

  it('in development without a public URL, is the loopback host of the request, never another Host', () => {
    expect(portalWriteOrigin(undefined, request('127.0.0.1:8080'))).toBe('http://127.0.0.1:8080');
    expect(portalWriteOrigin(undefined, request('localhost:3000'))).toBe('http://localhost:3000');
    expect(portalWriteOrigin(undefined, request('evil.example:8080'))).toBe('http://localhost:8080');
  });
});
