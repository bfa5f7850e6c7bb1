import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** user + system CPU of one process, in ms (0 once it has exited). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Every process whose command line passes `test` (Postgres backends come and go, so they are summed). */
export function pidsWhere(test: (cmdline: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return test(readFileSync(`/proc/${d}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Every process whose command line contains `needle`. */
export function pidsMatching(needle: string): number[] {
  return pidsWhere((cmdline) => cmdline.includes(needle));
}

export type ProcessGroups = [name: string, pids: () => number[]][];

/** Names of the groups `clusterGroups` adds after the services. */
export const GROUP = {
  postgres: 'postgres (bench database)',
  postgresRest: 'postgres (rest of the server)',
  kafka: 'kafka',
  client: 'bench (client, receiver)',
} as const;

/**
 * CPU spent by named groups of processes between `start()` and a measurement, from
 * /proc/<pid>/stat (user + system), so it counts what the kernel charged, not what a
 * profiler sampled. Per process: one that starts in between counts from zero, one that
 * exits in between drops out (its last share is lost rather than its whole life
 * subtracted). Linux only.
 */
export function cpuMeter(groups: ProcessGroups) {
  const sample = () => groups.map(([, pids]) => new Map(pids().map((pid) => [pid, cpuMs(pid)])));
  let before: Map<number, number>[] = [];
  /** Each group's CPU ms per unit of work since `start()`. */
  const measure = (units: number): Map<string, number> => {
    const after = sample();
    return new Map(
      groups.map(([name], i) => {
        let spent = 0;
        for (const [pid, ms] of after[i]) if (ms > 0) spent += ms - (before[i].get(pid) ?? 0);
        return [name, spent / units];
      }),
    );
  };
  return {
    start() {
      before = sample();
    },
    measure,
    /** Prints each group's CPU per unit of work and the total. */
    report(units: number, unit: string): string {
      const perGroup = measure(units);
      const lines = [...perGroup].map(([name, per]) => `  ${name.padEnd(30)} ${per.toFixed(3)} ms CPU per ${unit}`);
      const total = [...perGroup.values()].reduce((a, b) => a + b, 0);
      lines.push(
        `  ${'total'.padEnd(30)} ${total.toFixed(3)} ms CPU per ${unit} (2 cores: ${(2000 / total).toFixed(0)}/s at best)`,
      );
      return lines.join('\n');
    },
  };
}

/**
 * The usual groups: the services, Postgres, Kafka, and this process (client and receiver).
 * Postgres is split in two: the backends connected to the bench's own `database`, and the
 * rest of the server (checkpointer, WAL writer, I/O workers, and other sessions' databases
 * on a shared server).
 */
export function clusterGroups(services: { name: string; pid: () => number | undefined }[], database: string): ProcessGroups {
  const isBackendOfBench = (cmdline: string) => cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `);
  return [
    ...services.map(({ name, pid }): ProcessGroups[number] => [name, () => (pid() ? [pid()!] : [])]),
    [GROUP.postgres, () => pidsWhere(isBackendOfBench)],
    [GROUP.postgresRest, () => pidsWhere((cmdline) => cmdline.includes('postgres') && !isBackendOfBench(cmdline))],
    [GROUP.kafka, () => pidsMatching('kafka.Kafka')],
    [GROUP.client, () => [process.pid]],
  ];
}
