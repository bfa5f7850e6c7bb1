// The checks of `npm run verify-evidence` (scripts/verify-evidence.mjs, docs/evidence.md), as
// functions that throw an Invalid naming what failed. Every check reads the exact bytes it was
// given: nothing is re-serialised to make it verify.
import { createHash, createHmac, createPrivateKey, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { printParseErrorCode, visit } from 'jsonc-parser';

/** The package (or a key) does not verify: exit 1 with this message. */
export class Invalid extends Error {}

/**
 * The package shape this verifier reads (schemaVersion 2 added the chain and the platform signature;
 * the `attestedBy` marks of the code-hosting facts and checklists were added to it later, additively).
 */
export const SCHEMA_VERSION = 2;

const pointer = (path) =>
  path.length === 0 ? '/' : path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * Checks that `text` is I-JSON (RFC 7493): no duplicate member names, no lone surrogates in a
 * name or a string, no number beyond IEEE double precision, and JSON without extensions
 * (comments, trailing commas). JSON.parse would keep the last of two duplicate names, so a
 * package with a forged field prepended would read as the signed one: it is refused here.
 */
export function assertIJson(text, what) {
  const objects = [];
  const fail = (message) => {
    throw new Invalid(`${what}: ${message}`);
  };
  const wellFormed = (s, path, kind) => {
    if (!s.isWellFormed()) fail(`${kind} at ${pointer(path)} has a lone surrogate (not I-JSON)`);
  };
  visit(
    text,
    {
      onObjectBegin: () => void objects.push(new Set()),
      onObjectEnd: () => void objects.pop(),
      onObjectProperty: (name, _offset, _length, _line, _column, pathOf) => {
        const path = [...pathOf(), name];
        wellFormed(name, path, 'the member name');
        const names = objects.at(-1);
        if (names.has(name)) fail(`duplicate member name ${JSON.stringify(name)} at ${pointer(pathOf())}`);
        names.add(name);
      },
      onLiteralValue: (value, offset, length, _line, _column, pathOf) => {
        if (typeof value === 'string') wellFormed(value, pathOf(), 'the string');
        if (typeof value !== 'number') return;
        const raw = text.slice(offset, offset + length);
        const beyond = !Number.isFinite(value) || (/^-?\d+$/.test(raw) && !Number.isSafeInteger(value));
        if (beyond) fail(`the number ${raw} at ${pointer(pathOf())} is beyond IEEE double precision (not I-JSON)`);
      },
      onError: (code, offset) => fail(`not JSON (${printParseErrorCode(code)} at byte ${offset})`),
    },
    { disallowComments: true, allowTrailingComma: false },
  );
}

/**
 * A signed document's bytes, checked and parsed: UTF-8, I-JSON, a JSON object, and exactly its
 * RFC 8785 canonical form (what the evidence service signs: any other spacing, key order or number
 * form is refused).
 */
function readCanonical(bytes, what) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Invalid(`${what}: not UTF-8`);
  }
  assertIJson(text, what);
  const doc = JSON.parse(text);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Invalid(`${what}: not a JSON object`);
  if (!Buffer.from(canonicalize(doc), 'utf8').equals(bytes))
    throw new Invalid(`${what}: not in RFC 8785 canonical form (changed spacing, key order or number form)`);
  return doc;
}

/**
 * A package file's bytes, checked and parsed (readCanonical), of the schema version this verifier
 * reads, with a `sha256` that matches its content.
 */
export function readPackage(bytes, what = 'the package') {
  const pkg = readCanonical(bytes, what);
  if (pkg.schemaVersion !== SCHEMA_VERSION)
    throw new Invalid(`${what}: schemaVersion ${JSON.stringify(pkg.schemaVersion)}, this verifier reads ${SCHEMA_VERSION}`);
  const { sha256, ...content } = pkg;
  if (createHash('sha256').update(canonicalize(content), 'utf8').digest('hex') !== sha256)
    throw new Invalid(`${what}: its sha256 does not match its content`);
  return pkg;
}

/** What a head statement says it is; no package has a `statement` field. */
export const HEAD_STATEMENT = 'release-evidence-head';

/**
 * A head statement's bytes, checked and parsed (readCanonical): `statement` "release-evidence-head",
 * the organization and release, the newest package's `sequence` and `packageSha256`, `issuedAt`.
 */
export function readHead(bytes, what = 'the head') {
  const head = readCanonical(bytes, what);
  if (head.statement !== HEAD_STATEMENT) throw new Invalid(`${what}: not a head statement (no "statement":"${HEAD_STATEMENT}")`);
  if (!Number.isSafeInteger(head.sequence) || head.sequence < 1)
    throw new Invalid(`${what}: its sequence is not a package number`);
  if (typeof head.packageSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(head.packageSha256))
    throw new Invalid(`${what}: its packageSha256 is not a hex SHA-256`);
  for (const field of ['organizationId', 'releaseId', 'issuedAt'])
    if (typeof head[field] !== 'string') throw new Invalid(`${what}: its ${field} is not a string`);
  return head;
}

/**
 * The package set against a release's head (read by readHead, its signature checked): `newest`, the
 * newest package given (read by readPackage, with its `bytes`), is the package the head names, by
 * number and by the SHA-256 of its exact bytes. A newer package withheld, or another package in its
 * place, shows; the chain below it rests on its `previousSha256` (assertChain).
 */
export function assertHead(head, newest) {
  if (head.releaseId !== newest.release?.id || head.organizationId !== newest.organizationId)
    throw new Invalid('the head is of another release');
  if (head.sequence > newest.sequence) {
    const withheld =
      head.sequence === newest.sequence + 1
        ? `package ${head.sequence} is`
        : `packages ${newest.sequence + 1} to ${head.sequence} are`;
    throw new Invalid(
      `the head (issued ${head.issuedAt}) names package ${head.sequence} as the newest, the newest given is package ${newest.sequence}: ${withheld} withheld`,
    );
  }
  if (head.sequence < newest.sequence)
    throw new Invalid(
      `the head (issued ${head.issuedAt}) names package ${head.sequence} as the newest, older than the given package ${newest.sequence}: fetch a current head`,
    );
  if (createHash('sha256').update(newest.bytes).digest('hex') !== head.packageSha256)
    throw new Invalid(
      `package ${newest.sequence} is not the one the head names (its bytes' SHA-256 differs: changed or substituted)`,
    );
}

/** The RFC 7638 thumbprint of an Ed25519 JWK: what its `kid` must be. */
export function thumbprint(x) {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/**
 * The published platform keys (the JWK Set of /.well-known/evidence-keys.json) by key id, each
 * `{key, retired}` (`retired: true`: a key that signs nothing now, published for what it signed
 * before). A key whose `kid` is not its own thumbprint is refused, so a keys file cannot relabel a key.
 */
export function readPublishedKeys(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Invalid('the published keys are not JSON');
  }
  if (!Array.isArray(doc?.keys)) throw new Invalid('the published keys have no "keys" list');
  const byKid = new Map();
  for (const jwk of doc.keys) {
    if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') continue; // not ours to read
    if (jwk.kid !== thumbprint(jwk.x)) throw new Invalid(`the published key ${jwk.kid} is not named by its thumbprint`);
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    byKid.set(jwk.kid, { key, retired: jwk.retired === true });
  }
  if (byKid.size === 0) throw new Invalid('the published keys list no Ed25519 key');
  return byKid;
}

/** The public half (`x`, base64url) of the Ed25519 key of a 32-byte seed. */
function publicOfSeed(seed) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' }).x;
}

/**
 * Public keys whose private half anyone can make, by their `x`: the repository's development evidence
 * key (its seed is derived from a public constant: packages/platform/src/development-keys.ts) and the
 * seeds of one byte repeated 32 times (all zeros, ...), which a hand-made or placeholder setting gives.
 * A package signed by one of them proves nothing about who made it.
 */
const KNOWN_KEYS = new Map([
  [
    publicOfSeed(createHash('sha256').update('cluster development evidence signing key').digest()),
    'the development evidence key',
  ],
  ...Array.from({ length: 256 }, (_, b) => [publicOfSeed(Buffer.alloc(32, b)), `a weak key (seed of byte ${b} repeated)`]),
]);

/** What makes the published key `kid` one anyone can sign with (KNOWN_KEYS), or undefined. */
export function knownKeyOf(kid, keys) {
  const key = keys.get(kid)?.key;
  return key && KNOWN_KEYS.get(key.export({ format: 'jwk' }).x);
}

/**
 * The platform's Ed25519 signature (`ed25519=<base64url>`) over exactly `bytes`, by the published key `kid`.
 * A key anyone can sign with (the development key, a weak seed) is refused, unless `allowDevelopmentKey`
 * (a local cluster's packages, which `npm start` signs with the development key); so is a retired key
 * unless `allowRetired` (a package signed before a rotation; never a head, which is made when asked for).
 */
export function assertPlatformSignature(
  bytes,
  { signature, kid },
  keys,
  { allowDevelopmentKey = false, allowRetired = true, what = 'the platform signature' } = {},
) {
  const ofPackage = what === 'the platform signature';
  if (!signature || !kid)
    throw new Invalid(
      ofPackage
        ? 'no platform signature: give --headers with X-Service-Evidence-Platform-Signature and -Key-Id'
        : `no ${what.replace(/^the /, '')}`,
    );
  const prefix = ofPackage ? '' : `${what}: `;
  const published = keys.get(kid);
  if (!published) throw new Invalid(`${prefix}signed by platform key ${kid}, which the published keys do not list`);
  if (published.retired && !allowRetired)
    throw new Invalid(`${prefix}signed by platform key ${kid}, which the published keys list as retired: fetch a current head`);
  const known = knownKeyOf(kid, keys);
  if (known && !(allowDevelopmentKey && known === 'the development evidence key')) {
    throw new Invalid(
      `${prefix}signed by platform key ${kid}, ${known}, whose private half anyone can make: the signature proves nothing` +
        (known === 'the development evidence key' ? ' (--allow-development-key for a local cluster)' : ''),
    );
  }
  const sig = Buffer.from(signature.replace(/^ed25519=/, ''), 'base64url');
  if (!verify(null, bytes, published.key, sig)) throw new Invalid(`${what} does not match (changed bytes, or another key)`);
}

/** The organization's HMAC-SHA256 (`sha256=<hex>`) over exactly `bytes`, under the evidence key. */
export function assertKeySignature(bytes, signature, key) {
  if (!signature) throw new Invalid('no evidence key signature (X-Service-Evidence-Signature) to check --key against');
  const expected = Buffer.from(signature.replace(/^sha256=/, ''), 'hex');
  const actual = createHmac('sha256', key).update(bytes).digest();
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual))
    throw new Invalid('the evidence key signature does not match (changed bytes, or another key)');
}

/**
 * The chain from `earlier` (packages of the same release, read by readPackage, each with its
 * `bytes`) up to `current`: every number from the lowest given to the current one is there, and
 * each package's `previousSha256` is the SHA-256 of the exact bytes of the one before it, so a
 * removed, reordered or altered earlier package shows. The current package's signature covers
 * its `previousSha256`, so the whole chain rests on that one signature. Answers the first
 * sequence number checked.
 */
export function assertChain(current, earlier) {
  if (current.sequence === 1 && current.previousSha256 !== null) throw new Invalid('package 1 names a previous package');
  const bySequence = new Map();
  for (const p of earlier) {
    if (p.release?.id !== current.release?.id || p.organizationId !== current.organizationId)
      throw new Invalid(`package ${p.sequence} given as an earlier one is of another release`);
    if (p.sequence >= current.sequence)
      throw new Invalid(`package ${p.sequence} given as an earlier one is not earlier than package ${current.sequence}`);
    if (bySequence.has(p.sequence)) throw new Invalid(`package ${p.sequence} is given twice`);
    bySequence.set(p.sequence, p);
  }
  if (bySequence.size === 0) return current.sequence;
  const lowest = Math.min(...bySequence.keys());
  let next = current;
  for (let sequence = current.sequence - 1; sequence >= lowest; sequence--) {
    const p = bySequence.get(sequence);
    if (!p)
      throw new Invalid(`package ${sequence} of the chain is missing (the given ones go from ${lowest} to ${current.sequence})`);
    if (createHash('sha256').update(p.bytes).digest('hex') !== next.previousSha256)
      throw new Invalid(`package ${next.sequence} does not follow the given package ${sequence} (removed, reordered or changed)`);
    next = p;
  }
  if (next.sequence === 1 && next.previousSha256 !== null) throw new Invalid('package 1 names a previous package');
  return lowest;
}

/** The checklists of a package that read code-hosting facts (docs/evidence.md, "The package"). */
const CODE_CHECKLISTS = ['entries_have_commits', 'pull_requests_merged_green'];

/** The code-hosting facts of a package (read by readPackage): its commits, pull requests and CI runs. */
function codeFacts(pkg) {
  const code = pkg.codeHosting ?? {};
  return ['commits', 'pullRequests', 'ciRuns'].flatMap((list) => (Array.isArray(code[list]) ? code[list] : []));
}

/**
 * Who attests a package's code-hosting facts (docs/evidence.md, "Who attests the code-hosting facts"):
 * `{verified, organization, contradicted, checklists}`: how many facts the platform verified with GitHub,
 * how many only the organization's signed webhooks attest (of them, how many GitHub contradicted), and
 * the checklists that rest on the organization's word. A package issued before the marks has none: a
 * fact without `attestedBy` is the organization's word, and so is an unmarked code checklist of a
 * package with facts.
 */
export function codeAttestation(pkg) {
  const facts = codeFacts(pkg);
  const verified = facts.filter((f) => f.attestedBy === 'platform').length;
  const checklists = pkg.checklists ?? [];
  const organizationChecklists = checklists
    .filter((k) =>
      k.attestedBy === undefined ? facts.length > 0 && CODE_CHECKLISTS.includes(k.id) : k.attestedBy !== 'platform',
    )
    .map((k) => k.id);
  return {
    verified,
    organization: facts.length - verified,
    contradicted: facts.filter((f) => f.platformCheck === 'contradicted').length,
    checklists: organizationChecklists,
  };
}

/** What codeAttestation found, as the verifier prints it after what it checked. */
export function describeAttestation({ verified, organization, contradicted, checklists }) {
  const ORGANIZATION = 'organization-attested (not verified by the platform)';
  const facts =
    verified + organization === 0
      ? 'none'
      : organization === 0
        ? `verified by the platform with GitHub (all ${verified})`
        : verified === 0
          ? `${ORGANIZATION}${organization > 1 ? `, all ${organization}` : ''}`
          : `${verified} verified by the platform with GitHub, ${organization} ${ORGANIZATION}`;
  const parts = [`code-hosting facts: ${facts}`];
  if (contradicted > 0) parts.push(`${contradicted} contradicted by GitHub (counted for no checklist)`);
  if (checklists.length > 0) parts.push(`checklists on the organization's word: ${checklists.join(', ')}`);
  return parts.join('; ');
}
