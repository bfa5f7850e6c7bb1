// The bare ceiling of bench/api.ts: a plain node:http server that answers every request
// with one fixed response (the bytes a real `GET /me` returned). It runs as a child
// process, so its CPU is measured on its own and it does not share the client's event
// loop. Started by `startBareServer`; it is sent the response over IPC and answers with
// its port.
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A captured HTTP answer: status, headers as the server sent them, body bytes (base64). */
export interface CapturedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  bodyBase64: string;
}

/** The running child: where it listens, its pid for CPU accounting, and how to stop it. */
export interface BareServer {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts this file as a child process serving `answer` on a port of 127.0.0.1. */
export async function startBareServer(answer: CapturedAnswer): Promise<BareServer> {
  const child = fork(import.meta.filename, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (msg: { port: number }) => resolve(msg.port));
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    child.send(answer);
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** In the child: serve the answer the parent sends, then report the port. */
function serve(answer: CapturedAnswer): void {
  const body = Buffer.from(answer.bodyBase64, 'base64');
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(answer.status, answer.headers);
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.once('SIGTERM', () => process.exit(0));
}

if (process.send && process.argv[1] === import.meta.filename) process.once('message', serve);
