import { afterEach, describe, expect, it, vi } from 'vitest';
import { publicBaseUrl } from './config.ts';

afterEach(() => vi.unstubAllEnvs());

/** PUBLIC_BASE_URL read in development (true) or anywhere else (false). */
const read = (value: string, development: boolean) => {
  vi.stubEnv('PUBLIC_BASE_URL', value);
  return () => publicBaseUrl(development);
};

describe('PUBLIC_BASE_URL', () => {
  it('is required outside development; in development it may be unset', () => {
    expect(read('', false)).toThrow(/PUBLIC_BASE_URL is required unless CLUSTER_ENV=development/);
    expect(read('', true)()).toBeUndefined();
  });

  it('is an origin (an ingress without TLS may name http); a trailing slash is dropped', () => {
    expect(read('https://api.example.com/', false)()).toBe('https://api.example.com');
    expect(read('http://localhost:8080', true)()).toBe('http://localhost:8080');
    expect(read('http://feedback-api.dev.localhost', false)()).toBe('http://feedback-api.dev.localhost');
    expect(read('https://api.example.com/v1', false)).toThrow(/must be an origin/);
    expect(read('ftp://api.example.com', true)).toThrow(/must be an origin/);
    expect(read('api.example.com', true)).toThrow(/absolute http\(s\) URL/);
  });
});
