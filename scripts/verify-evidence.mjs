// `npm run --silent verify-evidence -- --key KEY --signature SIG < evidence.json`, or
// `--headers FILE` (the headers `curl -D FILE` saved) instead of --signature: prints `valid` and
// exits 0 only for an untouched evidence package (docs/evidence.md). It checks the HMAC-SHA256
// signature over the exact bytes (or, for a package re-serialised since, over its RFC 8785
// canonical form, which is what was signed) and the package's own sha256 digest of its content.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import canonicalize from 'canonicalize';

const { values } = parseArgs({
  options: { key: { type: 'string' }, signature: { type: 'string' }, headers: { type: 'string' } },
});
const fail = (why) => {
  process.stdout.write(`invalid: ${why}\n`);
  process.exit(1);
};
if (!values.key) fail('--key is required');
let signature = values.signature;
if (!signature && values.headers) {
  const line = readFileSync(values.headers, 'utf8')
    .split(/\r?\n/)
    .find((l) => /^x-service-evidence-signature:/i.test(l));
  signature = line?.split(':').slice(1).join(':').trim();
}
if (!signature) fail('no signature: give --signature, or --headers with X-Service-Evidence-Signature');
const expected = Buffer.from(signature.replace(/^sha256=/, ''), 'hex');

const raw = readFileSync(0);
let parsed;
try {
  parsed = JSON.parse(raw.toString('utf8'));
} catch {
  fail('the package is not JSON');
}
const hmac = (bytes) => createHmac('sha256', values.key).update(bytes).digest();
const same = (a, b) => a.length === b.length && timingSafeEqual(a, b);
const canonical = Buffer.from(canonicalize(parsed), 'utf8');
if (!same(hmac(raw), expected) && !same(hmac(canonical), expected))
  fail('the signature does not match (changed bytes, or another key)');

const { sha256, ...content } = parsed;
const digest = createHash('sha256').update(canonicalize(content), 'utf8').digest('hex');
if (digest !== sha256) fail('the sha256 digest does not match the content');
process.stdout.write('valid\n');
