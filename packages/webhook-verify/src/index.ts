// @cluster/webhook-verify: verify the webhooks of the feedback platform's developer API.
// No runtime dependencies beyond node:crypto. See README.md.
export { WebhookVerificationError, isWebhookVerificationError, type WebhookVerificationErrorCode } from './errors.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  asymmetricSignature,
  ed25519PublicKey,
  generateSigningKeyPair,
  headerOf,
  isPrivateKey,
  isPublicKey,
  publicKeyOf,
  safeEqual,
  serviceSignature,
  sign,
  standardSignature,
  standardWebhooksKey,
  verify,
  type HeaderSource,
  type SignatureScheme,
  type VerifiedWebhook,
  type VerifyOptions,
} from './verify.ts';
export { constructEvent, type WebhookEnvelope } from './construct-event.ts';
export {
  DEFAULT_REPLAY_TTL_SECONDS,
  createMemoryReplayGuard,
  type MemoryReplayGuard,
  type MemoryReplayGuardOptions,
  type ReplayGuard,
} from './replay-guard.ts';
export {
  expressWebhookVerifier,
  koaWebhookVerifier,
  type ExpressLikeRequest,
  type ExpressLikeResponse,
  type KoaLikeContext,
  type RequestStream,
  type WebhookMiddlewareOptions,
} from './middleware.ts';
