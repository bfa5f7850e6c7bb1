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

/** Every process whose command line contains `needle` (Postgres backends come and go, so they are summed). */
export function pidsMatching(needle: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

export type ProcessGroups = [name: string, pids: () => number[]][];

/**
 * CPU spent by named groups of processes between `start()` and `stop()`, from
 * /proc/<pid>/stat (user + system), so it counts what the kernel charged, not
 * what a profiler sampled. Linux only.
 */
export function cpuMeter(groups: ProcessGroups) {
  const sample = () => groups.map(([, pids]) => pids().reduce((sum, pid) => sum + cpuMs(pid), 0));
  let before: number[] = [];
  return {
    start() {
      before = sample();
    },
    /** Prints each group's CPU per unit of work and the total. */
    report(units: number, unit: string): string {
      const after = sample();
      const lines: string[] = [];
      let total = 0;
      groups.forEach(([name], i) => {
        const per = (after[i] - before[i]) / units;
        total += per;
        lines.push(`  ${name.padEnd(26)} ${per.toFixed(3)} ms CPU per ${unit}`);
      });
      lines.push(
        `  ${'total'.padEnd(26)} ${total.toFixed(3)} ms CPU per ${unit} (2 cores: ${(2000 / total).toFixed(0)}/s at best)`,
      );
      return lines.join('\n');
    },
  };
}

/** The usual groups: the three services, Postgres, Kafka, and this process (client and receiver). */
export function clusterGroups(services: { name: string; pid: () => number | undefined }[]): ProcessGroups {
  return [
    ...services.map(({ name, pid }): ProcessGroups[number] => [name, () => (pid() ? [pid()!] : [])]),
    ['postgres (all processes)', () => pidsMatching('postgres')],
    ['kafka', () => pidsMatching('kafka.Kafka')],
    ['bench (client, receiver)', () => [process.pid]],
  ];
}
