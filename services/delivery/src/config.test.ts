import { afterEach, describe, expect, it, vi } from 'vitest';
import { readDeliveryConfig } from './config.ts';

afterEach(() => vi.unstubAllEnvs());

describe('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS', () => {
  it('is refused outside development, and allowed in it', () => {
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS', 'true');
    vi.stubEnv('CLUSTER_ENV', 'production');
    expect(() => readDeliveryConfig()).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true is refused unless CLUSTER_ENV=development/,
    );
    vi.stubEnv('CLUSTER_ENV', 'development');
    expect(readDeliveryConfig().allowPrivateDestinations).toBe(true);
  });
});
