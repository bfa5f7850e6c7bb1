import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify } from 'jose';

// A local server that speaks the GitHub REST endpoints the evidence service's GitHub App reads
// (docs/evidence.md, "Platform verification with a GitHub App"), as GitHub does: the App's JWT
// (RS256, checked against the App's public key, issued for its id, at most 10 minutes long) for
// the installation of a repository and its access tokens; an installation token, limited to the
// repositories it was issued for, for every read. What it knows is set by the test.

export interface FakeGithub {
  /** http://127.0.0.1:<port>: GITHUB_API_URL. */
  url: string;
  appId: string;
  /** The App's private key, PKCS#1 PEM as GitHub hands it out: GITHUB_APP_PRIVATE_KEY. */
  privateKey: string;
  /** Repositories (`owner/name`) the App is installed on. */
  installed: Set<string>;
  /** Records by path below /repos/{owner}/{repo} (`pulls/7`, `commits/<sha>`, `actions/runs/<id>`, `commits/<sha>/check-runs`). */
  records: Map<string, unknown>;
  /** `ok` answers; `down` answers 503 to everything; `hang` never answers. */
  mode: 'ok' | 'down' | 'hang';
  /** Requests answered, by method and path (no query), in order. */
  seen: string[];
  /** JWTs refused (a bad signature, another issuer, too long a life). */
  refusedJwts: number;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakeGithub(): Promise<FakeGithub> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const appPublicKey = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
  const appId = String(100_000 + Math.floor(Math.random() * 100_000));
  const tokens = new Map<string, { installationId: number; repositories: string[] | null; expiresAt: number }>();
  const installationIds = new Map<string, number>();
  const hung: http.ServerResponse[] = [];
  const fake: Omit<FakeGithub, 'url' | 'close'> = {
    appId,
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    installed: new Set(),
    records: new Map(),
    mode: 'ok',
    seen: [],
    refusedJwts: 0,
  };

  /** Whether the request carries a JWT of the App: RS256 under its key, iss its id, at most 10 minutes long. */
  const appJwt = async (req: http.IncomingMessage) => {
    const token = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return false;
    try {
      const { payload } = await jwtVerify(token, appPublicKey, { algorithms: ['RS256'] });
      if (String(payload.iss) !== appId || !payload.iat || !payload.exp || payload.exp - payload.iat > 600)
        throw new Error('claims');
      return true;
    } catch {
      fake.refusedJwts++;
      return false;
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    fake.seen.push(`${req.method} ${url.pathname}`);
    if (fake.mode === 'hang') return void hung.push(res);
    if (fake.mode === 'down') return json(res, 503, { message: 'Service Unavailable' });
    if (req.headers['x-github-api-version'] !== '2022-11-28') return json(res, 400, { message: 'API version' });

    const installation = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(url.pathname);
    if (req.method === 'GET' && installation) {
      if (!(await appJwt(req))) return json(res, 401, { message: 'A JSON web token could not be decoded' });
      const repository = `${installation[1]}/${installation[2]}`.toLowerCase();
      if (!fake.installed.has(repository)) return json(res, 404, { message: 'Not Found' });
      if (!installationIds.has(repository)) installationIds.set(repository, 1000 + installationIds.size);
      return json(res, 200, { id: installationIds.get(repository), app_id: Number(appId) });
    }
    const accessTokens = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (req.method === 'POST' && accessTokens) {
      if (!(await appJwt(req))) return json(res, 401, { message: 'A JSON web token could not be decoded' });
      const asked = (body ? JSON.parse(body) : {}) as { repositories?: string[]; permissions?: Record<string, string> };
      if (Object.values(asked.permissions ?? {}).some((p) => p !== 'read'))
        return json(res, 422, { message: 'the evidence service asks for read permissions only' });
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      const expiresAt = Date.now() + 3_600_000;
      tokens.set(token, { installationId: Number(accessTokens[1]), repositories: asked.repositories ?? null, expiresAt });
      return json(res, 201, {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
        permissions: asked.permissions ?? {},
        repository_selection: 'selected',
      });
    }
    const read = /^\/repos\/([^/]+)\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && read) {
      const token = /^token (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const grant = token ? tokens.get(token) : undefined;
      const repository = `${read[1]}/${read[2]}`.toLowerCase();
      if (!grant || grant.expiresAt < Date.now()) return json(res, 401, { message: 'Bad credentials' });
      if (
        installationIds.get(repository) !== grant.installationId ||
        (grant.repositories && !grant.repositories.includes(read[2]))
      )
        return json(res, 404, { message: 'Not Found' });
      const record = fake.records.get(read[3]);
      if (record === undefined) return json(res, 404, { message: 'Not Found' });
      if (read[3].endsWith('/check-runs')) {
        const runs = record as unknown[];
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        return json(res, 200, { total_count: runs.length, check_runs: runs.slice((page - 1) * perPage, page * perPage) });
      }
      return json(res, 200, record);
    }
    return json(res, 404, { message: 'Not Found' });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => json(res, 500, { message: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
