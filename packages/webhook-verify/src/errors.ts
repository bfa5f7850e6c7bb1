/** Why a webhook was refused; stable strings a receiver may branch on or log. */
export type WebhookVerificationErrorCode =
  /** A header the scheme needs is absent or empty. */
  | 'missing_header'
  /** A timestamp header is not a whole number of seconds. */
  | 'invalid_timestamp'
  /** The timestamp is further from this clock than the tolerance (a replay, or a skewed clock). */
  | 'timestamp_out_of_tolerance'
  /** No signature matches any of the secrets. */
  | 'invalid_signature'
  /** The two schemes' headers name different deliveries or times. */
  | 'header_mismatch'
  /**
   * A secret is empty, or (Standard Webhooks) not base64 after `whsec_`; a `whpk_` public key is not base64 of
   * 32 bytes; a `whsk_` private key was given to verify; or `X-Service-Signature` was asked for with public keys only.
   */
  | 'invalid_secret'
  /** The signature is good but the body is not JSON (only when parsing was asked for). */
  | 'invalid_body';

/**
 * Thrown by `verify` when a webhook must not be trusted. `code` says why; the message is
 * for logs (it never contains a secret or an expected signature).
 */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;
  /** The HTTP status a receiver should answer: 400 for a malformed request, 401 for a refused one. */
  readonly status: 400 | 401;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
    this.status = code === 'invalid_body' || code === 'invalid_secret' ? 400 : 401;
  }
}

/** True for errors thrown by this package (also across copies of it, where `instanceof` fails). */
export function isWebhookVerificationError(err: unknown): err is WebhookVerificationError {
  return err instanceof Error && err.name === 'WebhookVerificationError' && typeof (err as { code?: unknown }).code === 'string';
}
