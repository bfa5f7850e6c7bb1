// CPU per unary RPC between the cluster's services, by transport. Needs nothing running:
//
//   node --import tsx bench/rpc.ts
//
// One process is both sides: the platform's service server (the backends' real
// server, with its interceptors) and a client of it, 16 calls in flight. Prints
// calls/s and CPU ms per call (client + server) for the cluster's transport
// (connect-unary.ts) and connect-node's Connect and gRPC transports.
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import {
  attachServiceToken,
  createLogger,
  createMetrics,
  createRpcTransport,
  createServiceServer,
  createTokenSigner,
  createTokenVerifier,
  devServiceKeys,
} from '@cluster/platform';
import { AuthService, type AuthenticateRequest } from '@cluster/proto';

const N = Number(process.env.BENCH_CALLS ?? 5000);
// Every call carries a service token, as in the cluster (the signer and verifier cache them).
const sign = createTokenSigner(devServiceKeys('gateway'));
const auth = { sign, audience: 'core' } as const;
const interceptors = [attachServiceToken(sign, 'core')];
const server = createServiceServer({
  service: 'bench',
  trust: { verify: createTokenVerifier(devServiceKeys('core')), policyOf: () => ({ callers: ['gateway'] }) },
  logger: createLogger('bench', 'silent'),
  metrics: createMetrics('bench'),
  ready: async () => ({ ready: true, checks: {} }),
  routes: (r) =>
    r.service(AuthService, {
      async authenticate(req: AuthenticateRequest) {
        return {
          apiEnabled: true,
          actor: {
            apiKeyId: 'k',
            organizationId: 'o',
            userId: 'u',
            role: 'admin',
            scope: 'organization',
            permissions: ['a', 'b'],
            requestId: req.requestId,
          },
        };
      },
    }),
});
const port = await server.listen(0, '127.0.0.1');
const baseUrl = `http://127.0.0.1:${port}`;
const variants = {
  'platform (Connect unary, h1)': () => createRpcTransport(baseUrl, auth),
  'connect-node Connect, h2': () =>
    createConnectTransport({ baseUrl, httpVersion: '2', useBinaryFormat: true, acceptCompression: [], interceptors }),
  'gRPC, h2': () => createGrpcTransport({ baseUrl, acceptCompression: [], interceptors }),
  'connect-node Connect, h1': () =>
    createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, acceptCompression: [], interceptors }),
};
// Two rounds, the first untimed: each variant then runs with every code path warm, whatever its place in the list.
for (const round of [1, 2])
  for (const [name, transport] of Object.entries(variants)) {
    const client = createClient(AuthService, transport());
    const calls = async (n: number) => {
      let i = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (i++ < n) await client.authenticate({ key: 'x', requestId: 'r' });
        }),
      );
    };
    await calls(1000); // warm-up
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await calls(N);
    const seconds = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(cpu);
    if (round === 2)
      console.log(
        `${name.padEnd(26)} ${(N / seconds).toFixed(0).padStart(5)} calls/s  ${((used.user + used.system) / 1000 / N).toFixed(3)} ms CPU per call (client + server)`,
      );
  }
await server.close();
process.exit(0);
