// CPU of a service token per internal call (docs/security.md, "The boundary"). Needs nothing running:
//
//   node --conditions=@cluster/source --import tsx bench/tokens.ts
//
// Signs and verifies tokens as both ends of a call do: method-bound tokens (signed once per
// audience, actor and method, cached by the signer and the verifier), request-bound ones (the
// digest of each request: signed and verified per call, the digest computed at both ends), and,
// for the floor under them, the raw Ed25519 operations with node:crypto.
import { createPublicKey, sign as edSign, verify as edVerify } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { createTokenSigner, createTokenVerifier, devServiceKeys, requestDigest } from '@cluster/platform';
import { EntryService, WriteRequestSchema } from '@cluster/proto';

const N = Number(process.env.BENCH_CALLS ?? 5000);
const sign = createTokenSigner(devServiceKeys('gateway'));
const verify = createTokenVerifier(devServiceKeys('core'));
const actor = { apiKeyId: 'k', organizationId: 'o', userId: 'u', role: 'admin', scope: 'organization', permissions: ['a', 'b'] };
// A create as the gateway forwards it: a small body and an Idempotency-Key.
const message = create(WriteRequestSchema, {
  parentId: 'p',
  body: { type: 'bug_report', title: 'A title', description: 'x'.repeat(400) },
});
const req = { method: EntryService.method.createEntry, message, header: new Headers({ 'idempotency-key': 'k-1' }) };
const method = 'cluster.core.v1.EntryService/CreateEntry';
const key = devServiceKeys('gateway').signingKey;
const publicKey = createPublicKey(key);
const data = Buffer.alloc(300, 1);

const variants: Record<string, () => Promise<void>> = {
  'method-bound (cached)': async () => void (await verify(await sign('core', actor, method))),
  'request-bound (per call)': async () => {
    const token = await sign('core', actor, method, requestDigest(req));
    await verify(token);
    requestDigest(req); // the callee's
  },
  'raw Ed25519 sign + verify': async () => void edVerify(null, data, publicKey, edSign(null, data, key)),
};

async function cpuPerCall(run: () => Promise<void>): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) await run();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / N;
}

// Two rounds, the first untimed, so that every variant runs warm.
for (const round of [1, 2])
  for (const [name, run] of Object.entries(variants)) {
    const ms = await cpuPerCall(run);
    if (round === 2) console.log(`${name.padEnd(28)} ${ms.toFixed(4)} ms CPU per call (both ends)`);
  }
