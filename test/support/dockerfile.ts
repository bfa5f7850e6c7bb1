import { exec, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Replays a Dockerfile without Docker, to check that the image it describes builds and runs
 * (test/image.test.ts). Each stage gets its own directory as its root filesystem; WORKDIR, ENV,
 * COPY (the build context, or `--from=<stage>`) and RUN (`sh -c` in the working directory,
 * `--mount` flags dropped) are replayed; USER and CMD are recorded. The base images are not:
 * the commands run on this machine's Node and shell, which is the image's Node major version.
 */
export interface ReplayedStage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  cmd?: string[];
}

interface Instruction {
  op: string;
  args: string;
}

/** The instructions of a Dockerfile: comments dropped, continuation lines joined. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    const m = /^(\w+)\s+(.*)$/s.exec(full);
    if (m) out.push({ op: m[1].toUpperCase(), args: m[2] });
  }
  return out;
}

/** A .dockerignore pattern as a test on a context-relative path (globs `**`, `*`, `?`; a directory covers its files). */
function ignoreMatcher(pattern: string): (file: string) => boolean {
  const body = pattern
    .replace(/^\/+/, '')
    .split('**/')
    .map((part) =>
      part
        .replace(/[.+^$(){}|[\]\\]/g, (c) => `\\${c}`)
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]'),
    )
    .join('(?:.*/)?');
  const re = new RegExp(`^${body}(?:/.*)?$`);
  return (file) => re.test(file);
}

/** The build context: the repository's files (tracked and untracked, not git-ignored) less .dockerignore. */
export function contextFiles(contextDir: string): string[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: contextDir,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  const ignored = dockerignore(contextDir);
  return files.filter((f) => !ignored(f));
}

/** The .dockerignore rules of `contextDir`, as one test on a context-relative path. */
function dockerignore(contextDir: string): (file: string) => boolean {
  let rules: ((f: string) => boolean)[] = [];
  try {
    rules = readFileSync(path.join(contextDir, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map(ignoreMatcher);
  } catch {
    /* no .dockerignore */
  }
  return (file) => rules.some((m) => m(file));
}

/**
 * The build context as `docker build` sends it: every file under `contextDir` that .dockerignore does
 * not exclude, git-ignored ones included (Docker does not read .gitignore), so a secret left in the
 * checkout is found. A directory the rules exclude is not walked (the rules have no `!` exceptions).
 */
export function dockerContextFiles(contextDir: string): string[] {
  const ignored = dockerignore(contextDir);
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(contextDir, rel), { withFileTypes: true })) {
      const file = rel ? `${rel}/${entry.name}` : entry.name;
      if (ignored(file)) continue;
      if (entry.isDirectory()) walk(file);
      else out.push(file);
    }
  };
  walk('');
  return out.sort();
}

/**
 * Replays `dockerfile` with `contextDir` as the build context, each stage under `workDir`.
 * RUN steps run asynchronously: a test worker blocked for a minute of `npm install` misses its
 * runner's calls (vitest: `Timeout calling "onTaskUpdate"`).
 */
export async function replayDockerfile(opts: {
  dockerfile: string;
  contextDir: string;
  workDir: string;
  log?: (line: string) => void;
}): Promise<ReplayedStage[]> {
  const stages: ReplayedStage[] = [];
  const context = contextFiles(opts.contextDir);
  let stage: ReplayedStage | undefined;
  const inStage = (p: string, s: ReplayedStage) => path.join(s.root, path.isAbsolute(p) ? p : path.join(s.workdir, p));
  for (const { op, args } of parseDockerfile(readFileSync(opts.dockerfile, 'utf8'))) {
    if (op === 'FROM') {
      const m = /^\S+(?:\s+AS\s+(\S+))?$/i.exec(args);
      const name = m?.[1] ?? `stage${stages.length}`;
      stage = { name, root: path.join(opts.workDir, name), workdir: '/', env: {} };
      mkdirSync(stage.root, { recursive: true });
      stages.push(stage);
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    const s = stage;
    opts.log?.(`[${s.name}] ${op} ${args}`);
    switch (op) {
      case 'WORKDIR':
        s.workdir = path.posix.resolve(s.workdir, args);
        mkdirSync(inStage('.', s), { recursive: true });
        break;
      case 'ENV':
        for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) s.env[m[1]] = m[2].replace(/^"|"$/g, '');
        if (!args.includes('=')) {
          const [k, ...v] = args.split(/\s+/);
          s.env[k] = v.join(' ');
        }
        break;
      case 'COPY': {
        const parts = args.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? parts.shift()!.slice('--from='.length) : undefined;
        const dst = inStage(parts.pop()!, s);
        for (const src of parts) {
          if (from) {
            const source = stages.find((x) => x.name === from);
            if (!source) throw new Error(`COPY --from=${from}: no such stage`);
            cpSync(path.join(source.root, src), dst, { recursive: true });
          } else if (src === '.') {
            for (const f of context) cpSync(path.join(opts.contextDir, f), path.join(dst, f), { recursive: true });
          } else {
            cpSync(path.join(opts.contextDir, src), dst, { recursive: true });
          }
        }
        break;
      }
      case 'RUN': {
        const command = args.replace(/^(--mount=\S+\s+)+/, '');
        await promisify(exec)(command, {
          cwd: inStage('.', s),
          env: { ...process.env, ...s.env },
          shell: '/bin/sh',
          maxBuffer: 64 * 1024 * 1024,
        });
        break;
      }
      case 'USER':
        s.user = args;
        break;
      case 'CMD':
        s.cmd = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`unsupported instruction ${op}`);
    }
  }
  return stages;
}
