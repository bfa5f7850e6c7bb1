// One hop of bench/floor.ts, run as a child process: the cluster's shape with nothing in it.
//   role `core`: a node:http server; each POST runs one prepared statement on Postgres (`pg`) and
//                answers its row as JSON bytes.
//   role `gateway`: a node:http server; each GET makes one POST to the core hop over an undici pool of
//                keep-alive connections (as connect-unary.ts does) and answers its bytes.
// The parent sends { role, target } over IPC and gets { port } back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Pool } from 'undici';

type Start = { role: 'core'; databaseUrl: string } | { role: 'gateway'; coreOrigin: string };

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function core(databaseUrl: string): http.Server {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  return http.createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const { rows } = await db.query({
        name: 'floor-read',
        text: 'select $1::text as "id", now() as "at", current_user as "user"',
        values: [body.toString('utf8')],
      });
      const out = Buffer.from(JSON.stringify(rows[0]));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
      res.end(out);
    });
  });
}

function gateway(coreOrigin: string): http.Server {
  const pool = new Pool(coreOrigin, { connections: 128, pipelining: 1 });
  return http.createServer((req, res) => {
    req.resume();
    void pool
      .request({ method: 'POST', path: '/read', headers: { 'content-type': 'application/octet-stream' }, body: 'project-1' })
      .then(async (answer) => {
        const out = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
        res.end(out);
      });
  });
}

if (process.send && process.argv[1] === import.meta.filename) {
  process.once('message', (start: Start) => {
    const server = start.role === 'core' ? core(start.databaseUrl) : gateway(start.coreOrigin);
    server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
    process.once('SIGTERM', () => process.exit(0));
  });
}
