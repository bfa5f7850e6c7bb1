import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { KafkaRequestQueue } from './request-queue-fix.ts';
import './index.ts';

const logger = { debug() {}, info() {}, warn() {}, error() {}, namespace: () => logger };
const queue = () =>
  new KafkaRequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 1000,
    enforceRequestTimeout: false,
    clientId: 't',
    broker: 'b',
    logger,
  });

describe('kafkajs request queue (patched)', () => {
  it('schedules no check when nothing is pending and nothing is throttled (no 1 ms timer loop)', () => {
    vi.useFakeTimers();
    try {
      const q = queue();
      const checks = vi.spyOn(q, 'checkPendingRequests');
      q.scheduleCheckPendingRequests();
      expect(q.throttleCheckTimeoutId).toBeNull();
      vi.advanceTimersByTime(100);
      expect(checks).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('still checks a pending request, and one waiting for a throttle to end', () => {
    vi.useFakeTimers();
    try {
      const q = queue();
      const checks = vi.spyOn(q, 'checkPendingRequests').mockImplementation(() => {});
      q.pending.push({});
      q.scheduleCheckPendingRequests();
      vi.advanceTimersByTime(10);
      expect(checks).toHaveBeenCalledTimes(1);

      const t = queue();
      const later = vi.spyOn(t, 'checkPendingRequests').mockImplementation(() => {});
      t.throttledUntil = Date.now() + 50;
      t.scheduleCheckPendingRequests();
      vi.advanceTimersByTime(49);
      expect(later).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(later).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is the queue kafkajs itself uses: a kafkajs connection gets the patched queue', async () => {
    const { scheduleCheckPendingRequests } = await import('./request-queue-fix.ts');
    // kafkajs's own Connection class, loaded the way kafkajs loads it (not connected).
    const require = createRequire(import.meta.url);
    const Connection = require('kafkajs/src/network/connection.js') as new (opts: Record<string, unknown>) => {
      requestQueue: { scheduleCheckPendingRequests: unknown };
    };
    const connection = new Connection({
      host: '127.0.0.1',
      port: 1,
      logger,
      socketFactory: () => undefined,
      requestTimeout: 1000,
    });
    expect(connection.requestQueue.scheduleCheckPendingRequests).toBe(scheduleCheckPendingRequests);
  });
});
