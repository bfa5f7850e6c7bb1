import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** The process listening on TCP `port` of this machine, from /proc/net/tcp{,6} and the processes' sockets. */
export function listenerPid(port: number): number | undefined {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local address, state 0A (LISTEN), inode
      if (cols.length > 9 && cols[1].endsWith(hex) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  if (!inodes.size) return undefined;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (socket && inodes.has(socket[1])) return Number(pid);
      } catch {
        // the descriptor closed meanwhile
      }
    }
  }
  return undefined;
}

/** The pid of the process listening on the port of `address` (host:port or a URL), cached while it lives. */
function listenerOf(address: () => string | undefined) {
  let pid: number | undefined;
  return (): number | undefined => {
    if (pid !== undefined && cpuMs(pid) > 0) return pid;
    const port = Number(/:(\d+)(?:\/|$)/.exec(address() ?? '')?.[1]);
    pid = Number.isInteger(port) && port > 0 ? listenerPid(port) : undefined;
    return pid;
  };
}

const brokerOfRun = listenerOf(() => (process.env.KAFKA_BROKERS ?? '').split(',')[0].trim());
const postgresOfRun = listenerOf(() => process.env.TEST_DATABASE_URL);

/** The parent pid of a process (0 once it has exited). */
function parentPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/**
 * The Kafka broker of this run: the process listening on the first port of KAFKA_BROKERS. Several
 * brokers may run on one machine (each worktree's test infrastructure starts its own), and counting
 * every `kafka.Kafka` process added the others' CPU to this run's (bench/README.md, "Kafka client
 * and broker cost"). Without KAFKA_BROKERS, or with no local process listening there: every broker.
 */
export function kafkaBrokerPids(): number[] {
  const pid = brokerOfRun();
  return pid !== undefined ? [pid] : pidsMatching('kafka.Kafka');
}

/** The processes of this run's Postgres server (TEST_DATABASE_URL's port: the postmaster and its children), or every Postgres process. */
function postgresServerPids(): number[] {
  const all = pidsMatching('postgres');
  const postmaster = postgresOfRun();
  return postmaster === undefined ? all : all.filter((pid) => pid === postmaster || parentPid(pid) === postmaster);
}

export type ProcessGroups = [name: string, pids: () => number[]][];

/** Names of the groups `clusterGroups` adds after the services. */
export const GROUP = {
  postgres: 'postgres (bench database)',
  postgresRest: 'postgres (rest of the server)',
  kafka: 'kafka',
  client: 'bench (client, receiver)',
  /** Printed, not added to the total: the other benches and tests sharing the machine. */
  others: '(other brokers and Postgres servers on this machine, not counted)',
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
      // A group named in parentheses is shown for context only (GROUP.others).
      const total = [...perGroup].reduce((a, [name, per]) => (name.startsWith('(') ? a : a + per), 0);
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
 * rest of its server (checkpointer, WAL writer, I/O workers, and other sessions' databases on
 * the server of TEST_DATABASE_URL). Other Postgres servers and Kafka brokers running on the same
 * machine (other worktrees' tests and benches) are shown apart and left out of the total.
 */
export function clusterGroups(services: { name: string; pid: () => number | undefined }[], database: string): ProcessGroups {
  const isBackendOfBench = (pid: number) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `);
    } catch {
      return false;
    }
  };
  const ours = () => new Set([...postgresServerPids(), ...kafkaBrokerPids()]);
  return [
    ...services.map(({ name, pid }): ProcessGroups[number] => [name, () => (pid() ? [pid()!] : [])]),
    [GROUP.postgres, () => postgresServerPids().filter(isBackendOfBench)],
    [GROUP.postgresRest, () => postgresServerPids().filter((pid) => !isBackendOfBench(pid))],
    [GROUP.kafka, kafkaBrokerPids],
    [GROUP.client, () => [process.pid]],
    [
      GROUP.others,
      () => {
        const counted = ours();
        return pidsWhere((cmdline) => cmdline.includes('kafka.Kafka') || cmdline.startsWith('postgres')).filter(
          (pid) => !counted.has(pid),
        );
      },
    ],
  ];
}
