import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** `X-Hub-Signature-256`: `sha256=` and the HMAC's 64 hex digits (GitHub writes them in lower case). */
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Whether `signature` is GitHub's HMAC-SHA256 of exactly these bytes under `secret`. Over the bytes,
 * never a decoded text: decoding replaces invalid UTF-8 with U+FFFD, so two different bodies would
 * share one signature. The digests are compared in constant time.
 */
export function verifyGithubSignature(secret: string, body: Uint8Array, signature: string): boolean {
  const m = SIGNATURE.exec(signature);
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
}

/**
 * The SHA-256 of a delivery's body bytes (hex): the signed content itself, so a signed body re-sent
 * under another (unsigned) X-GitHub-Delivery id is still recognised as a duplicate.
 */
export function bodyDigest(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}
