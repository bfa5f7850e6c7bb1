// Verifies a release's evidence package (docs/evidence.md, "Verify a package"):
//
//   npm run --silent verify-evidence -- --keys KEYS --headers FILE [--key KEY] [--previous FILE ...] [--head FILE]
//     [--require-platform-verified] < evidence.json
//
// KEYS: the platform's published keys, a file saved from /.well-known/evidence-keys.json or that
// URL. FILE: the response headers `curl -D FILE` saved (or give --platform-signature,
// --platform-key-id and --signature instead). --key: the organization's evidence key, to check
// its HMAC too. --previous: earlier packages of the same release, to check the chain up to this one.
// --head: the headers of an answer holding the release's signed head (X-Service-Evidence-Head), to
// check that this package is the newest one: a withheld newer package, or another in its place, shows.
// A package signed with a key anyone can make (the repository's development evidence key, a seed of
// one repeated byte) is invalid; --allow-development-key accepts the development key (a local cluster).
// After what it checked, it says who attests the code-hosting facts: the platform (verified with GitHub's
// API) or only the organization (its own signed webhooks); --require-platform-verified makes a package
// with any fact or checklist on the organization's word invalid (docs/evidence.md, "Who attests the
// code-hosting facts").
// Offline with a saved keys file: nothing else is needed.
//
// Checks exactly the bytes it is given: UTF-8, I-JSON (no duplicate names, no lone surrogates,
// no number beyond double precision), exactly the RFC 8785 canonical form, the sha256 field, the
// platform's Ed25519 signature, the HMAC when --key is given, the chain when --previous is.
// Prints `valid: ...` and exits 0; `invalid: <why>` and exits 1; `error: <why>` and exits 2 when
// it could not check (a missing option, an unreadable file, the keys URL unreachable).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  Invalid,
  assertChain,
  assertHead,
  assertKeySignature,
  assertPlatformSignature,
  codeAttestation,
  describeAttestation,
  knownKeyOf,
  readHead,
  readPackage,
  readPublishedKeys,
} from './lib/evidence-verify.mjs';

const USAGE =
  'usage: verify-evidence --keys FILE|URL (--headers FILE | --platform-signature SIG --platform-key-id KID [--signature SIG])' +
  ' [--key KEY] [--previous FILE ...] [--head FILE] [--allow-development-key] [--require-platform-verified] < package.json';

class UsageError extends Error {}

function options() {
  try {
    return parseArgs({
      options: {
        keys: { type: 'string' },
        headers: { type: 'string' },
        'platform-signature': { type: 'string' },
        'platform-key-id': { type: 'string' },
        signature: { type: 'string' },
        key: { type: 'string' },
        previous: { type: 'string', multiple: true, default: [] },
        head: { type: 'string' },
        'allow-development-key': { type: 'boolean', default: false },
        'require-platform-verified': { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`${err.message}\n${USAGE}`);
  }
}

/** A file's bytes, or a UsageError naming it. */
function read(file, what) {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${err.code ?? err.message}`);
  }
}

/** The value of header `name` in a headers file saved by `curl -D`, or undefined. */
function headerOf(file, what, name) {
  return read(file, what)
    .toString('utf8')
    .split(/\r?\n/)
    .find((line) => line.toLowerCase().startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim();
}

/** The signatures, from the saved headers or the options. */
function signatures(values) {
  const given = {
    platform: values['platform-signature'],
    kid: values['platform-key-id'],
    hmac: values.signature,
  };
  if (!values.headers) return given;
  const header = (name) => headerOf(values.headers, 'the headers file', name);
  return {
    platform: given.platform ?? header('x-service-evidence-platform-signature'),
    kid: given.kid ?? header('x-service-evidence-platform-key-id'),
    hmac: given.hmac ?? header('x-service-evidence-signature'),
  };
}

/**
 * The release's head from a saved answer's headers (docs/evidence.md, "The head"): its bytes
 * (X-Service-Evidence-Head, base64url), its signature and the key that made it.
 */
function headFrom(file) {
  const header = (name) => headerOf(file, 'the head headers file', name);
  const encoded = header('x-service-evidence-head');
  if (!encoded) throw new UsageError(`the head headers file ${file} holds no X-Service-Evidence-Head`);
  return {
    bytes: Buffer.from(encoded, 'base64url'),
    signature: header('x-service-evidence-head-signature'),
    kid: header('x-service-evidence-platform-key-id'),
  };
}

/** The published keys' text, from a file or a URL. */
async function publishedKeys(where) {
  if (!/^https?:\/\//.test(where)) return read(where, 'the keys file').toString('utf8');
  let res;
  try {
    res = await fetch(where, { signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new UsageError(`cannot fetch the keys from ${where}: ${err.cause?.code ?? err.message}`);
  }
  if (!res.ok) throw new UsageError(`cannot fetch the keys from ${where}: HTTP ${res.status}`);
  return res.text();
}

async function main() {
  const values = options();
  if (!values.keys) throw new UsageError(`--keys is required (the published platform keys)\n${USAGE}`);
  const keys = readPublishedKeys(await publishedKeys(values.keys));
  const sig = signatures(values);
  const bytes = readFileSync(0);
  const pkg = readPackage(bytes);
  const allowDevelopmentKey = values['allow-development-key'];
  assertPlatformSignature(bytes, { signature: sig.platform, kid: sig.kid }, keys, { allowDevelopmentKey });
  const notes = [
    ...(knownKeyOf(sig.kid, keys) ? ['the development key: a local cluster only'] : []),
    ...(keys.get(sig.kid).retired ? ['retired'] : []),
  ];
  const checked = [`platform signature (key ${[sig.kid, ...notes].join(', ')})`];
  if (values.key !== undefined) {
    assertKeySignature(bytes, sig.hmac, values.key);
    checked.push('evidence key signature');
  }
  const earlier = values.previous.map((file) => {
    const fileBytes = read(file, 'the earlier package');
    return { ...readPackage(fileBytes, `the earlier package ${file}`), bytes: fileBytes };
  });
  const first = assertChain(pkg, earlier);
  checked.push(
    first < pkg.sequence ? `chain of packages ${first} to ${pkg.sequence}` : `package ${pkg.sequence} (no earlier package given)`,
  );
  if (values.head !== undefined) {
    const signed = headFrom(values.head);
    const head = readHead(signed.bytes);
    assertPlatformSignature(signed.bytes, signed, keys, { allowDevelopmentKey, allowRetired: false, what: 'the head signature' });
    assertHead(head, { ...pkg, bytes });
    checked.push(`the newest package, as the head issued ${head.issuedAt} says`);
  }
  const attestation = codeAttestation(pkg);
  if (values['require-platform-verified'] && (attestation.organization > 0 || attestation.checklists.length > 0))
    throw new Invalid(`not every code-hosting fact is verified by the platform: ${describeAttestation(attestation)}`);
  return `${checked.join(', ')}; ${describeAttestation(attestation)}`;
}

try {
  process.stdout.write(`valid: ${await main()}\n`);
} catch (err) {
  if (err instanceof Invalid) {
    process.stdout.write(`invalid: ${err.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`error: ${err instanceof UsageError ? err.message : String(err)}\n`);
    process.exitCode = 2;
  }
}
