import { describe, expect, it } from 'vitest';
import { apiKeyOf } from './authenticate.ts';

describe('apiKeyOf (pipeline step 2)', () => {
  it('takes the Bearer token first, in any case of the scheme, trimmed', () => {
    expect(apiKeyOf('Bearer  ak_1 ', 'ak_2')).toBe('ak_1');
    expect(apiKeyOf('bearer ak_1', '')).toBe('ak_1');
  });

  it('falls back to X-API-Key when Authorization holds no Bearer token', () => {
    expect(apiKeyOf('Basic dXNlcg==', ' ak_2 ')).toBe('ak_2');
    expect(apiKeyOf('Bearer    ', 'ak_2')).toBe('ak_2');
    expect(apiKeyOf('', '')).toBe('');
  });
});
