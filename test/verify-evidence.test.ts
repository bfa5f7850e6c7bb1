import { execFile } from 'node:child_process';
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import { afterAll, describe, expect, it } from 'vitest';

// The documented verifier (scripts/verify-evidence.mjs) against packages made here, signed with keys
// made here, and tampered with as an attacker would: each must be refused with a reason. (The
// packages the cluster issues go through it in test/evidence.test.ts.)
const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'verify-evidence-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A platform key pair and its JWK as the well-known document publishes it. */
function platformKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid, x } };
}
type PlatformKey = ReturnType<typeof platformKey>;
const current = platformKey();
const retired = platformKey();
const stranger = platformKey();
const HMAC_KEY = 'fbe_organization-key';

const canonical = (value: unknown) => Buffer.from(canonicalize(value)!, 'utf8');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A package of the release's chain, canonical, with its sha256 over the rest. */
function makePackage(sequence: number, previous: Buffer | null, extra: Record<string, unknown> = {}): Buffer {
  const content = {
    schemaVersion: 2,
    generatedAt: '2026-05-01T10:00:00.000Z',
    organizationId: '11111111-1111-4111-8111-111111111111',
    release: { id: '22222222-2222-4222-8222-222222222222', name: 'Spring' },
    entrySummary: { entries: [], total: 0, countsByStatus: {}, countsByType: {} },
    approvalChain: [],
    checklists: [{ id: 'entries_done', title: 'Every entry is solved or deployed', passed: false, failingEntryIds: ['e1'] }],
    codeHosting: { commits: [], pullRequests: [], ciRuns: [] },
    sequence,
    previousSha256: previous ? sha256(previous) : null,
    ...extra,
  };
  return canonical({ ...content, sha256: sha256(canonical(content)) });
}

/** The headers the gateway would send with `bytes`, as `curl -D` saves them. */
function headersFor(bytes: Buffer, key: PlatformKey = current, privateKey: KeyObject = key.privateKey): string {
  return [
    'HTTP/1.1 200 OK',
    `X-Service-Evidence-Platform-Signature: ed25519=${sign(null, bytes, privateKey).toString('base64url')}`,
    `X-Service-Evidence-Platform-Key-Id: ${key.jwk.kid}`,
    `X-Service-Evidence-Signature: sha256=${createHmac('sha256', HMAC_KEY).update(bytes).digest('hex')}`,
    '',
    '',
  ].join('\r\n');
}

const file = (name: string, content: Buffer | string) => {
  const p = path.join(work, `${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(p, content);
  return p;
};
const published = file('keys.json', JSON.stringify({ keys: [current.jwk, retired.jwk] }));

/** The verifier on `bytes` with the headers of `signedBytes` (default: the same bytes); its output and exit code. */
async function verify(
  bytes: Buffer,
  opts: { headers?: string; keys?: string; args?: string[] } = {},
): Promise<{ code: number; out: string }> {
  const args = [
    '--keys',
    opts.keys ?? published,
    '--headers',
    file('headers.txt', opts.headers ?? headersFor(bytes)),
    ...(opts.args ?? []),
  ];
  const input = file('pkg.json', bytes);
  try {
    const { stdout } = await run(
      'sh',
      ['-c', `node scripts/verify-evidence.mjs ${args.map((a) => `'${a}'`).join(' ')} < '${input}'`],
      {
        cwd: ROOT,
      },
    );
    return { code: 0, out: stdout.trim() };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}`.trim() };
  }
}

const first = makePackage(1, null);
const second = makePackage(2, first);
const third = makePackage(3, second);
const fourth = makePackage(4, third);
/** `bytes` with its first occurrence of `from` replaced. */
const edit = (bytes: Buffer, from: string, to: string) => Buffer.from(bytes.toString('utf8').replace(from, to));

/** A published key made from a seed anyone knows (`seed`), and its key pair. */
function knownKey(seed: Buffer) {
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid, x } };
}

describe('verify-evidence', () => {
  it('refuses a package signed with a key anyone can make: the development key (unless told), a seed of one repeated byte', async () => {
    const development = knownKey(createHash('sha256').update('cluster development evidence signing key').digest());
    const zeros = knownKey(Buffer.alloc(32, 0));
    const keys = file('known-keys.json', JSON.stringify({ keys: [development.jwk, zeros.jwk, current.jwk] }));
    const byDevelopment = await verify(fourth, { keys, headers: headersFor(fourth, development) });
    expect(byDevelopment.code).toBe(1);
    expect(byDevelopment.out).toMatch(/^invalid: .*the development evidence key, whose private half anyone can make/);
    expect(await verify(fourth, { keys, headers: headersFor(fourth, development), args: ['--allow-development-key'] })).toEqual({
      code: 0,
      out: `valid: platform signature (key ${development.jwk.kid}, the development key: a local cluster only), package 4 (no earlier package given)`,
    });
    for (const args of [[], ['--allow-development-key']]) {
      const byZeros = await verify(fourth, { keys, headers: headersFor(fourth, zeros), args });
      expect(byZeros.code).toBe(1);
      expect(byZeros.out).toMatch(/^invalid: .*a weak key \(seed of byte 0 repeated\)/);
    }
    // A real key in the same document still verifies.
    expect((await verify(fourth, { keys })).code).toBe(0);
  });

  it('verifies a package offline with the published platform key alone, and the HMAC when given the key', async () => {
    expect(await verify(fourth)).toEqual({
      code: 0,
      out: `valid: platform signature (key ${current.jwk.kid}), package 4 (no earlier package given)`,
    });
    expect((await verify(fourth, { args: ['--key', HMAC_KEY] })).out).toContain('evidence key signature');
    expect(await verify(fourth, { args: ['--key', 'fbe_another'] })).toEqual({
      code: 1,
      out: 'invalid: the evidence key signature does not match (changed bytes, or another key)',
    });
  });

  it('keeps a package signed before a rotation verifiable: the retired key stays published', async () => {
    expect((await verify(fourth, { headers: headersFor(fourth, retired) })).code).toBe(0);
    const onlyNew = file('keys.json', JSON.stringify({ keys: [current.jwk] }));
    expect(await verify(fourth, { headers: headersFor(fourth, retired), keys: onlyNew })).toEqual({
      code: 1,
      out: `invalid: signed by platform key ${retired.jwk.kid}, which the published keys do not list`,
    });
  });

  it('refuses a package signed with a key the platform does not publish, or a key listed under another id', async () => {
    expect((await verify(fourth, { headers: headersFor(fourth, stranger) })).out).toMatch(/do not list/);
    // The stranger's signature under the current key's id.
    expect(await verify(fourth, { headers: headersFor(fourth, current, stranger.privateKey) })).toEqual({
      code: 1,
      out: 'invalid: the platform signature does not match (changed bytes, or another key)',
    });
    const relabelled = file('keys.json', JSON.stringify({ keys: [{ ...stranger.jwk, kid: current.jwk.kid }] }));
    expect((await verify(fourth, { headers: headersFor(fourth, current, stranger.privateKey), keys: relabelled })).out).toBe(
      `invalid: the published key ${current.jwk.kid} is not named by its thumbprint`,
    );
  });

  it('refuses duplicate member names: a forged checklist prepended to the signed package', async () => {
    const forged = Buffer.concat([
      Buffer.from('{"checklists":[{"failingEntryIds":[],"id":"entries_done","passed":true,"title":"x"}],'),
      fourth.subarray(1),
    ]);
    expect(await verify(forged, { headers: headersFor(fourth) })).toEqual({
      code: 1,
      out: 'invalid: the package: duplicate member name "checklists" at /',
    });
  });

  it('refuses re-ordered keys, other spacing, and a field prepended, even with the HMAC of a tenant who re-signs', async () => {
    const pkg = JSON.parse(fourth.toString('utf8')) as Record<string, unknown>;
    const reordered = Buffer.from(JSON.stringify({ sha256: pkg.sha256, ...pkg }));
    const pretty = Buffer.from(JSON.stringify(pkg, null, 2));
    for (const bytes of [reordered, pretty]) {
      expect(await verify(bytes, { headers: headersFor(fourth), args: ['--key', HMAC_KEY] })).toEqual({
        code: 1,
        out: 'invalid: the package: not in RFC 8785 canonical form (changed spacing, key order or number form)',
      });
    }
    // A field prepended, canonical and with a recomputed sha256: only the platform signature can tell.
    const prepended = makePackage(4, third, { aaa: 'forged' });
    expect(await verify(prepended, { headers: headersFor(fourth) })).toEqual({
      code: 1,
      out: 'invalid: the platform signature does not match (changed bytes, or another key)',
    });
  });

  it('refuses an altered checklist, whether or not its sha256 was recomputed', async () => {
    const altered = edit(fourth, '"passed":false', '"passed":true');
    expect(await verify(altered, { headers: headersFor(fourth) })).toEqual({
      code: 1,
      out: 'invalid: the package: its sha256 does not match its content',
    });
    const { sha256: _, ...content } = JSON.parse(altered.toString('utf8')) as Record<string, unknown>;
    const resealed = canonical({ ...content, sha256: sha256(canonical(content)) });
    expect((await verify(resealed, { headers: headersFor(fourth) })).out).toBe(
      'invalid: the platform signature does not match (changed bytes, or another key)',
    );
  });

  it('refuses anything outside I-JSON: a lone surrogate, a number beyond double precision, comments', async () => {
    expect((await verify(edit(fourth, '"Spring"', '"Spr\\ud800ing"'))).out).toBe(
      'invalid: the package: the string at /release/name has a lone surrogate (not I-JSON)',
    );
    expect((await verify(edit(fourth, '"total":0', '"total":9007199254740993'))).out).toBe(
      'invalid: the package: the number 9007199254740993 at /entrySummary/total is beyond IEEE double precision (not I-JSON)',
    );
    expect((await verify(edit(fourth, '{', '/* x */{'))).out).toMatch(/^invalid: the package: not JSON \(InvalidCommentToken/);
    expect((await verify(Buffer.from([0x7b, 0xff, 0x7d]))).out).toBe('invalid: the package: not UTF-8');
  });

  it('checks the chain when given the earlier packages: a removed, reordered or changed package shows', async () => {
    const prior = (...packages: Buffer[]) => packages.flatMap((p) => ['--previous', file('earlier.json', p)]);
    expect(await verify(fourth, { args: prior(first, third, second) })).toEqual({
      code: 0,
      out: `valid: platform signature (key ${current.jwk.kid}), chain of packages 1 to 4`,
    });
    expect((await verify(fourth, { args: prior(second, third) })).out).toContain('chain of packages 2 to 4');
    expect(await verify(fourth, { args: prior(first, third) })).toEqual({
      code: 1,
      out: 'invalid: package 2 of the chain is missing (the given ones go from 1 to 4)',
    });
    // Another package 2 in place of the real one (a changed or substituted package).
    const other2 = makePackage(2, first, { generatedAt: '2026-05-02T10:00:00.000Z' });
    expect((await verify(fourth, { args: prior(first, other2, third) })).out).toBe(
      'invalid: package 3 does not follow the given package 2 (removed, reordered or changed)',
    );
    // Packages given in place of one another.
    expect((await verify(third, { args: prior(fourth) })).out).toBe(
      'invalid: package 4 given as an earlier one is not earlier than package 3',
    );
  });

  it('answers a usage error with exit code 2', async () => {
    const input = file('pkg.json', fourth);
    const res = await run('sh', ['-c', `node scripts/verify-evidence.mjs < '${input}'`], { cwd: ROOT }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(res).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: --keys is required/) });
  });
});
