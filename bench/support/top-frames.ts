// Where a service's CPU went, from the .cpuprofile files `--cpu-prof` writes (BENCH_PROFILE=dir
// in bench/api.ts and bench/webhooks.ts):
//
//   node --import tsx bench/support/top-frames.ts /tmp/prof [more dirs or files] [--top 15]
//   node --import tsx bench/support/top-frames.ts /tmp/prof --callers DOMException   # who calls it
//
// For each process's main thread it names the service (from the main.ts it ran) and prints
// the functions with the most self time (aggregated by function name and location, so a
// function sampled in many call stacks counts once), then self time by package. Other threads
// (tsx's module loader) get one line. `--callers <text>` prints, for the functions whose
// name contains <text>, their self time by the chain of 3 callers above them.
// Percentages are of the busy time: everything but "(idle)". A profile covers the whole life
// of the process, start-up and seeding included; a few minutes of load dwarf those.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A parsed profile with each node's self time (ms) and parent. */
interface Loaded {
  file: string;
  pid: string;
  thread: string;
  profile: Profile;
  self: Map<number, number>;
  parent: Map<number, number>;
  byId: Map<number, ProfileNode>;
  busy: number;
  all: number;
}

function load(file: string): Loaded {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  // Each sample is charged the time until the next one.
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000));
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  let all = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    all += ms;
    if (node.callFrame.functionName === '(idle)') idle += ms;
  }
  // CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile
  const [, , , pid = '?', thread = '?'] = path.basename(file).split('.');
  return { file, pid, thread, profile, self, parent, byId, busy: all - idle, all };
}

/** A location a reader can place: node_modules/<package>/..., services/..., node:internal. */
function shortUrl(url: string): string {
  const clean = url.replace(/^file:\/\//, '');
  const modules = clean.lastIndexOf('node_modules/');
  if (modules >= 0) return clean.slice(modules);
  const repo = clean.search(/\/(services|packages|bench|test)\//);
  return repo >= 0 ? clean.slice(repo + 1) : clean;
}

/** The package (or workspace folder, or node's own code) a location belongs to. */
function packageOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native / VM)';
  const short = shortUrl(url);
  const modules = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(short);
  if (modules) return modules[1];
  const workspace = /^((?:services|packages)\/[^/]+)/.exec(short);
  if (workspace) return workspace[1];
  return short.startsWith('node:') ? 'node (built-in modules)' : short;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ''}`;
}

/** Which service ran: the first services/<name>/src/{main,run}.ts among the frames. */
function serviceOf(profile: Profile): string | undefined {
  for (const { callFrame } of profile.nodes) {
    // The entry point or the service it loads: their bundles (dist/main.js, dist/run.js), or sources.
    const match = /services\/([\w-]+)\/(?:src|dist)\/(?:main|run)\.[jt]s$/.exec(callFrame.url);
    if (match) return match[1];
  }
  return undefined;
}

function top(totals: Map<string, number>, n: number): [string, number][] {
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, n);
}

function add(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

/** Self time summed by a key of each non-idle node. */
function totalsBy(p: Loaded, key: (node: ProfileNode) => string | undefined): Map<string, number> {
  const totals = new Map<string, number>();
  for (const node of p.profile.nodes) {
    if (node.callFrame.functionName === '(idle)') continue;
    const k = key(node);
    if (k !== undefined) add(totals, k, p.self.get(node.id) ?? 0);
  }
  return totals;
}

/** The chain of up to `depth` callers above a node, nearest first. */
function callers(p: Loaded, node: ProfileNode, depth: number): string {
  const chain: string[] = [];
  for (let id = p.parent.get(node.id); id !== undefined && chain.length < depth; id = p.parent.get(id)) {
    chain.push(frameName(p.byId.get(id)!));
  }
  return chain.join(' <- ') || '(root)';
}

/** The report of one main thread: top functions and packages, or the callers of `callersOf`. */
function summarise(p: Loaded, label: string, n: number, callersOf?: string): string {
  const pct = (ms: number) => `${((ms / p.busy) * 100).toFixed(1).padStart(5)}%`;
  const rows = (totals: Map<string, number>, count: number) =>
    top(totals, count).map(([key, ms]) => `  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${key}`);
  const head = `== ${label} (${path.basename(p.file)}): busy ${(p.busy / 1000).toFixed(1)} s of ${(p.all / 1000).toFixed(1)} s sampled`;
  if (callersOf) {
    const matching = (node: ProfileNode) => node.callFrame.functionName.includes(callersOf);
    return [
      head,
      `callers of functions named *${callersOf}*, by self time:`,
      ...rows(
        totalsBy(p, (node) => (matching(node) ? `${frameName(node)}  <-  ${callers(p, node, 3)}` : undefined)),
        n,
      ),
    ].join('\n');
  }
  return [
    head,
    `top ${n} functions by self time:`,
    ...rows(totalsBy(p, frameName), n),
    'self time by package:',
    ...rows(totalsBy(p, packageOf), 12),
  ].join('\n');
}

/** The .cpuprofile files named on the command line, directories expanded. */
function profileFiles(args: string[]): string[] {
  return args.flatMap((arg) =>
    statSync(arg).isDirectory()
      ? readdirSync(arg)
          .filter((f) => f.endsWith('.cpuprofile'))
          .sort()
          .map((f) => path.join(arg, f))
      : [arg],
  );
}

/** Removes `--name value` from args and returns the value. */
function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
}

const args = process.argv.slice(2);
const n = Number(option(args, '--top') ?? 15);
const callersOf = option(args, '--callers');
const loaded = profileFiles(args).map(load);
if (loaded.length === 0) {
  console.error('usage: node --import tsx bench/support/top-frames.ts <dir or .cpuprofile>... [--top 15] [--callers name]');
  process.exit(2);
}
const services = new Map(loaded.map((p) => [p.pid, serviceOf(p.profile)] as const).filter(([, s]) => s !== undefined));
for (const p of loaded) {
  const label = `${services.get(p.pid) ?? 'unknown process'} (pid ${p.pid})`;
  if (serviceOf(p.profile)) console.log(`${summarise(p, label, n, callersOf)}\n`);
  else console.log(`== ${label}, thread ${p.thread} (module loader): busy ${(p.busy / 1000).toFixed(1)} s\n`);
}
