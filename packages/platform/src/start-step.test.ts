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

  it('fails the start on a failure `fatal` names, without retrying; after the wait, `done` rejects with it', async () => {
    const fatal = (err: unknown) => ((err as Error).message === 'wrong password' ? 'the login was refused' : undefined);
    let attempts = 0;
    await expect(
      startStep(
        'connecting',
        async () => {
          attempts++;
          throw new Error('wrong password');
        },
        { logger, waitMs: 5000, fatal },
      ),
    ).rejects.toThrow('connecting failed: the login was refused');
    expect(attempts).toBe(1);

    let brokerUp = false;
    const late = await startStep(
      'connecting',
      async () => {
        throw new Error(brokerUp ? 'wrong password' : 'broker down');
      },
      { logger, waitMs: 50, maxBackoffMs: 100, fatal },
    );
    brokerUp = true;
    await expect(late.done).rejects.toThrow('connecting failed: the login was refused');
  });
});
