import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { startStep } from './start-step.ts';

const logger = createLogger('test', 'silent');

describe('startStep', () => {
  it('is awaited like the step itself when the step succeeds in time', async () => {
    let ran = 0;
    const s = await startStep('step', async () => void ran++, { logger, waitMs: 5000 });
    expect(ran).toBe(1);
    expect(await s.done).toBe(true);
  });

  it('goes on after waitMs and keeps trying the step until it succeeds', async () => {
    let attempts = 0;
    let dependencyUp = false;
    const s = await startStep(
      'step',
      async () => {
        attempts++;
        if (!dependencyUp) throw new Error('broker down');
      },
      { logger, waitMs: 50, maxBackoffMs: 1000 },
    );
    expect(attempts).toBe(1); // the start went on after 50 ms
    dependencyUp = true;
    expect(await s.done).toBe(true);
    expect(attempts).toBe(2);
  });

  it('stops retrying on stop()', async () => {
    const s = await startStep(
      'step',
      async () => {
        throw new Error('broker down');
      },
      { logger, waitMs: 10 },
    );
    s.stop();
    expect(await s.done).toBe(false);
  });
});
