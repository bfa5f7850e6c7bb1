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
import { runVerifier } from './support/verify-evidence.ts';

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

/** The headers of an answer carrying `head` (a head statement's bytes) signed by `key`, as the gateway sends them. */
function headHeaders(head: Buffer, key: PlatformKey = current): string {
  return [
    'HTTP/1.1 200 OK',
    `X-Service-Evidence-Platform-Key-Id: ${key.jwk.kid}`,
    `X-Service-Evidence-Head: ${head.toString('base64url')}`,
    `X-Service-Evidence-Head-Signature: ed25519=${sign(null, head, key.privateKey).toString('base64url')}`,
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
  const { code, stdout, stderr } = await runVerifier(args, file('pkg.json', bytes));
  return { code, out: `${stdout}${stdout && stderr ? '\n' : ''}${stderr}` };
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
      out: `valid: platform signature (key ${development.jwk.kid}, the development key: a local cluster only), package 4 (no earlier package given); code-hosting facts: none`,
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
      out: `valid: platform signature (key ${current.jwk.kid}), package 4 (no earlier package given); code-hosting facts: none`,
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
      out: `valid: platform signature (key ${current.jwk.kid}), chain of packages 1 to 4; code-hosting facts: none`,
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

  it('checks the package set against a signed head: a withheld newest package, another in its place, a stale head show', async () => {
    const prior = (...packages: Buffer[]) => packages.flatMap((p) => ['--previous', file('earlier.json', p)]);
    /** A head naming `newest` as the release's newest package. */
    const headDoc = (newest: Buffer, extra: Record<string, unknown> = {}) =>
      canonical({
        statement: 'release-evidence-head',
        organizationId: '11111111-1111-4111-8111-111111111111',
        releaseId: '22222222-2222-4222-8222-222222222222',
        sequence: (JSON.parse(newest.toString('utf8')) as { sequence: number }).sequence,
        packageSha256: sha256(newest),
        issuedAt: '2026-05-03T10:00:00.000Z',
        ...extra,
      });
    const headOf = (newest: Buffer, opts: { by?: PlatformKey; extra?: Record<string, unknown> } = {}) =>
      headHeaders(headDoc(newest, opts.extra), opts.by);
    const withHead = (head: string) => ['--head', file('head-headers.txt', head)];
    expect(await verify(fourth, { args: [...prior(first, second, third), ...withHead(headOf(fourth))] })).toEqual({
      code: 0,
      out: `valid: platform signature (key ${current.jwk.kid}), chain of packages 1 to 4, the newest package, as the head issued 2026-05-03T10:00:00.000Z says; code-hosting facts: none`,
    });
    // Package 4 withheld: the set 1 to 3 is whole as a chain, and only the head tells.
    expect(await verify(third, { args: [...prior(first, second), ...withHead(headOf(fourth))] })).toEqual({
      code: 1,
      out: 'invalid: the head (issued 2026-05-03T10:00:00.000Z) names package 4 as the newest, the newest given is package 3: package 4 is withheld',
    });
    expect((await verify(second, { args: withHead(headOf(fourth)) })).out).toMatch(/packages 3 to 4 are withheld$/);
    // Another package 4 in place of the one the head names.
    const other4 = makePackage(4, third, { generatedAt: '2026-05-02T10:00:00.000Z' });
    expect((await verify(other4, { args: withHead(headOf(fourth)) })).out).toBe(
      "invalid: package 4 is not the one the head names (its bytes' SHA-256 differs: changed or substituted)",
    );
    // A head older than the package: it cannot say the package is the newest.
    expect((await verify(fourth, { args: withHead(headOf(third)) })).out).toMatch(/names package 3 as the newest, older than/);
    // A broken chain under a matching head is still refused.
    const other2 = makePackage(2, first, { generatedAt: '2026-05-02T10:00:00.000Z' });
    expect((await verify(fourth, { args: [...prior(first, other2, third), ...withHead(headOf(fourth))] })).out).toBe(
      'invalid: package 3 does not follow the given package 2 (removed, reordered or changed)',
    );
    // A head signed by a key the published keys mark retired: a head is made when asked for, so it is old or forged.
    const marked = file('keys.json', JSON.stringify({ keys: [current.jwk, { ...retired.jwk, retired: true }] }));
    expect(await verify(fourth, { keys: marked, headers: headersFor(fourth, retired) })).toEqual({
      code: 0,
      out: `valid: platform signature (key ${retired.jwk.kid}, retired), package 4 (no earlier package given); code-hosting facts: none`,
    });
    expect((await verify(fourth, { keys: marked, args: withHead(headOf(fourth, { by: retired })) })).out).toBe(
      `invalid: the head signature: signed by platform key ${retired.jwk.kid}, which the published keys list as retired: fetch a current head`,
    );
    expect((await verify(fourth, { keys: marked, args: withHead(headOf(fourth)) })).code).toBe(0);
    // A head of another release, one not signed by a published key, a forged one, a package passed off as a head.
    expect((await verify(fourth, { args: withHead(headOf(fourth, { extra: { releaseId: 'another' } })) })).out).toBe(
      'invalid: the head is of another release',
    );
    expect((await verify(fourth, { args: withHead(headOf(fourth, { by: stranger })) })).out).toMatch(
      /^invalid: the head signature: signed by platform key .*, which the published keys do not list$/,
    );
    // A head rewritten to name package 3, under package 4's head signature.
    const rewritten = canonical({
      ...(JSON.parse(headDoc(fourth).toString('utf8')) as Record<string, unknown>),
      sequence: 3,
      packageSha256: sha256(third),
    });
    const forged = headOf(fourth).replace(/^(X-Service-Evidence-Head: ).*$/m, `$1${rewritten.toString('base64url')}`);
    expect((await verify(third, { args: withHead(forged) })).out).toBe(
      'invalid: the head signature does not match (changed bytes, or another key)',
    );
    expect((await verify(fourth, { args: withHead(headHeaders(fourth)) })).out).toBe(
      'invalid: the head: not a head statement (no "statement":"release-evidence-head")',
    );
    const noHead = await verify(fourth, { args: withHead(headersFor(fourth)) });
    expect(noHead.code).toBe(2);
    expect(noHead.out).toMatch(/^error: the head headers file .* holds no X-Service-Evidence-Head$/);
  });

  it('says who attests the code-hosting facts; --require-platform-verified refuses a package resting on the organization’s word', async () => {
    const fact = (attestedBy: string, platformCheck: string) => ({
      sha: 'a'.repeat(40),
      entryIds: [],
      attestedBy,
      platformCheck,
    });
    const code = (...checks: [string, string][]) => ({
      codeHosting: { commits: [], pullRequests: [], ciRuns: checks.map(([by, check]) => fact(by, check)) },
      checklists: [
        { id: 'entries_done', title: 't', passed: true, failingEntryIds: [], attestedBy: 'platform' },
        {
          id: 'pull_requests_merged_green',
          title: 't',
          passed: true,
          failingEntryIds: [],
          attestedBy: checks.every(([by]) => by === 'platform') ? 'platform' : 'organization',
        },
      ],
    });
    const valid = `valid: platform signature (key ${current.jwk.kid}), package 1 (no earlier package given); `;
    // A signed webhook's success of CI that never ran: the platform signature holds, and the output says whose word it is.
    const tenants = makePackage(1, null, code(['organization', 'unchecked']));
    expect(await verify(tenants)).toEqual({
      code: 0,
      out: `${valid}code-hosting facts: organization-attested (not verified by the platform); checklists on the organization's word: pull_requests_merged_green`,
    });
    expect(await verify(tenants, { args: ['--require-platform-verified'] })).toEqual({
      code: 1,
      out: `invalid: not every code-hosting fact is verified by the platform: code-hosting facts: organization-attested (not verified by the platform); checklists on the organization's word: pull_requests_merged_green`,
    });
    const mixed = makePackage(
      1,
      null,
      code(['platform', 'confirmed'], ['organization', 'contradicted'], ['organization', 'unchecked']),
    );
    expect((await verify(mixed)).out).toBe(
      `${valid}code-hosting facts: 1 verified by the platform with GitHub, 2 organization-attested (not verified by the platform); 1 contradicted by GitHub (counted for no checklist); checklists on the organization's word: pull_requests_merged_green`,
    );
    const verified = makePackage(1, null, code(['platform', 'confirmed'], ['platform', 'confirmed']));
    expect(await verify(verified, { args: ['--require-platform-verified'] })).toEqual({
      code: 0,
      out: `${valid}code-hosting facts: verified by the platform with GitHub (all 2)`,
    });
    // A package issued before the marks has none: its facts, and its code checklists, are the organization's word.
    const older = makePackage(1, null, {
      codeHosting: { commits: [], pullRequests: [], ciRuns: [{ sha: 'a'.repeat(40), entryIds: [] }] },
      checklists: [{ id: 'pull_requests_merged_green', title: 't', passed: true, failingEntryIds: [] }],
    });
    expect((await verify(older)).out).toBe(
      `${valid}code-hosting facts: organization-attested (not verified by the platform); checklists on the organization's word: pull_requests_merged_green`,
    );
    expect((await verify(makePackage(1, null, { schemaVersion: 3 }))).out).toBe(
      'invalid: the package: schemaVersion 3, this verifier reads 2',
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
