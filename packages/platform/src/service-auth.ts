// Service-to-service authentication (docs/security.md): every RPC carries a short-lived
// token, an EdDSA-signed JWT whose issuer is the calling service and whose audience is
// the called one. A call made for an API key's request also carries that key's actor in
// the token (`act`), so the callee takes the actor from a signature, never from the
// request message as sent, and a digest of the request (`dig`), so that it opens that one
// request and no other.
import { createHash, createPrivateKey, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { create, toBinary, type DescMessage, type JsonObject, type MessageShape } from '@bufbuild/protobuf';
import { createContextKey, type Interceptor } from '@connectrpc/connect';
import { ActorSchema, type Actor } from '@cluster/proto';
import type { ActorClaims } from './actor-claims.ts';
import { CALL_HEADERS } from './call-headers.ts';
import { requestContext } from './context.ts';
import { signEdDsaJwt, verifyEdDsaJwt, type JwtClaims } from './eddsa-jwt.ts';
import { DomainError } from './errors.ts';
import { enforceInput, enforceRule, OPERATION_RULES, type OperationRule } from './operation-rules.ts';

export const SERVICE_NAMES = ['gateway', 'core', 'delivery', 'evidence'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export type { ActorClaims };

/**
 * A service's own signing key and the public keys of the services it accepts calls from
 * (a service may have two listed while its key is being rotated).
 */
export interface ServiceKeys {
  self: ServiceName;
  signingKey: KeyObject;
  publicKeys: readonly { service: ServiceName; key: KeyObject }[];
}

/**
 * Seconds a token is valid. A caller reuses a token bound to no request (`dig`) until it has less
 * than REUSE_MARGIN_S left; one bound to a request is signed for that request alone.
 */
export const TOKEN_TTL_S = 30;
const REUSE_MARGIN_S = 10;
/** Clock difference tolerated between two pods. */
const CLOCK_TOLERANCE_S = 5;
/** Bound of each token cache: the oldest entry goes when it is full. */
const CACHE_MAX = 10_000;

// An Ed25519 key in DER: a fixed ASN.1 prefix, then the 32 raw bytes.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The Ed25519 private key of a 32-byte seed (the SERVICE_SIGNING_KEY setting, base64). */
export function signingKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The Ed25519 public key of its 32 raw bytes (an entry of SERVICE_PUBLIC_KEYS, base64). */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The 32 raw bytes of an Ed25519 public key (or of a private key's public half), as SERVICE_PUBLIC_KEYS lists them. */
export function rawPublicKey(key: KeyObject): Buffer {
  const spki = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_PREFIX.length);
}

/** A token's `kid`: names the signing key (a hash of its public half), so a callee picks the one to verify with. */
function keyIdOf(key: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(key)).digest('hex').slice(0, 16);
}

/**
 * Development keys: derived from public constants, so anyone can mint them. Only for
 * `npm start` and tests; outside CLUSTER_ENV=development they are refused by fingerprint (development-keys.ts).
 */
export function devServiceSeed(service: ServiceName): Buffer {
  return createHash('sha256').update(`cluster development service key: ${service}`).digest();
}

/** The development ServiceKeys of a service: its dev seed, and every service's dev public key. */
export function devServiceKeys(self: ServiceName): ServiceKeys {
  const publicKeys = SERVICE_NAMES.map((service) => ({
    service,
    key: createPublicKey(signingKeyFromSeed(devServiceSeed(service))),
  }));
  return { self, signingKey: signingKeyFromSeed(devServiceSeed(self)), publicKeys };
}

/** The claims of an actor: what a token carries and what a callee compares. */
export function claimsOf(actor: ActorClaims): ActorClaims {
  const { apiKeyId, organizationId, userId, role, scope, scopedProjectId, permissions, grantId, portalSessionId } = actor;
  return {
    apiKeyId,
    organizationId,
    userId,
    role,
    scope,
    ...(scopedProjectId ? { scopedProjectId } : {}),
    permissions: [...permissions],
    ...(grantId ? { grantId } : {}),
    ...(portalSessionId ? { portalSessionId } : {}),
  };
}

/** Whether two actors grant the same: same key, organization, user, role, scope, permissions, OAuth grant and portal session. */
export function sameActor(a: ActorClaims, b: ActorClaims): boolean {
  return actorKey(a) === actorKey(b);
}

function actorKey(a: ActorClaims): string {
  return JSON.stringify([
    a.apiKeyId,
    a.organizationId,
    a.userId,
    a.role,
    a.scope,
    a.scopedProjectId ?? '',
    a.permissions,
    a.grantId ?? '',
    a.portalSessionId ?? '',
  ]);
}

/**
 * What a token binds its call to (the claim `dig`, issue 37): SHA-256 over the method
 * (`Service/Method`), the message's binary encoding (path parameters, query and body: everything the
 * call asks for) and the request's Idempotency-Key and fingerprint, base64url. The callee computes it
 * again from the message it decoded, before it binds the token's actor into it: a captured token
 * opens that one request, never another project's delete. Protobuf-ES writes known fields in
 * field-number order and a field the callee does not know yet (a rolling upgrade) after them, where
 * a caller's newer message, numbering new fields after the old ones, writes it too.
 */
export function requestDigest<Desc extends DescMessage>(req: {
  method: { input: Desc; name: string; parent: { typeName: string } };
  message: MessageShape<Desc>;
  header: Headers;
}): string {
  return createHash('sha256')
    .update(`${req.method.parent.typeName}/${req.method.name}\n`)
    .update(toBinary(req.method.input, req.message))
    .update(`\n${req.header.get(CALL_HEADERS.key) ?? ''}\n${req.header.get(CALL_HEADERS.fingerprint) ?? ''}`)
    .digest('base64url');
}

/**
 * Signs this service's tokens for an audience, actor and method (`Service/Method`, the claim `mth`:
 * a callee accepts a token only for that method) and, for a unary call, the request's digest
 * (`dig`, requestDigest): such a token is signed for its request alone. One without a digest is
 * reused while valid.
 */
export type TokenSigner = (audience: ServiceName, actor?: ActorClaims, method?: string, digest?: string) => Promise<string>;

export function createTokenSigner(keys: ServiceKeys, clock: () => number = Date.now): TokenSigner {
  const cache = new Map<string, { token: string; expiresAt: number }>();
  const kid = keyIdOf(keys.signingKey);
  return async (audience, actor, method, digest) => {
    const cacheKey = digest ? undefined : `${audience}\n${method ?? ''}\n${actor ? actorKey(actor) : ''}`;
    const now = Math.floor(clock() / 1000);
    const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
    if (hit && hit.expiresAt - now > REUSE_MARGIN_S) return hit.token;
    const expiresAt = now + TOKEN_TTL_S;
    const token = signEdDsaJwt(
      {
        ...(actor ? { act: claimsOf(actor) } : {}),
        ...(method ? { mth: method } : {}),
        ...(digest ? { dig: digest } : {}),
        iss: keys.self,
        aud: audience,
        iat: now,
        exp: expiresAt,
      },
      kid,
      keys.signingKey,
    );
    if (cacheKey !== undefined) remember(cache, cacheKey, { token, expiresAt });
    return token;
  };
}

/** Adds an entry to a bounded cache, dropping the oldest when it is full. */
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/**
 * What a verified token proves: the calling service, the method it may call, the request it was
 * signed for (requestDigest), and the actor it calls for, if any.
 */
export interface VerifiedCall {
  caller: ServiceName;
  method?: string;
  digest?: string;
  actor?: ActorClaims;
}

/** Where requireServiceToken leaves a call's verified token for the interceptors after it (`req.contextValues`). */
export const verifiedCallKey = createContextKey<VerifiedCall | undefined>(undefined, {
  description: 'the verified service token',
});

/**
 * Verifies tokens addressed to this service; a token already verified is looked up, not re-verified
 * (a backend checks a call's token before it reads the body, then again with the decoded message).
 */
export type TokenVerifier = (token: string) => Promise<VerifiedCall>;

export function createTokenVerifier(keys: ServiceKeys, clock: () => number = Date.now): TokenVerifier {
  const cache = new Map<string, { call: VerifiedCall; expiresAt: number }>();
  const byKid = new Map(keys.publicKeys.map((entry) => [keyIdOf(entry.key), entry]));
  return async (token) => {
    const now = clock();
    const hit = cache.get(token);
    if (hit && hit.expiresAt > now) return hit.call;
    let verified: { kid: string; claims: JwtClaims };
    try {
      verified = verifyEdDsaJwt(token, {
        keyFor: (kid) => byKid.get(kid)?.key,
        audience: keys.self,
        maxTokenAgeS: TOKEN_TTL_S + CLOCK_TOLERANCE_S,
        clockToleranceS: CLOCK_TOLERANCE_S,
        now,
      });
    } catch {
      throw unauthorized('the service token is invalid or expired');
    }
    const { claims: payload, kid } = verified;
    // A token lives TOKEN_TTL_S at most, whatever its own exp says: one minted for longer (by whoever
    // holds a key) is refused, and none is honoured from the cache past its issue time plus that.
    const issuedAt = payload.iat as number;
    const expiresAt = payload.exp as number;
    if (expiresAt - issuedAt > TOKEN_TTL_S) throw unauthorized(`a service token lives ${TOKEN_TTL_S} s at most`);
    // The key that verified the signature is listed for one service: the token must be that service's.
    const caller = byKid.get(kid)?.service;
    if (!caller || payload.iss !== caller) throw unauthorized('the service token is not signed by its issuer');
    const call: VerifiedCall = {
      caller,
      ...(typeof payload.mth === 'string' ? { method: payload.mth } : {}),
      ...(typeof payload.dig === 'string' ? { digest: payload.dig } : {}),
      ...(payload.act ? { actor: payload.act as ActorClaims } : {}),
    };
    remember(cache, token, { call, expiresAt: (expiresAt + CLOCK_TOLERANCE_S) * 1000 });
    return call;
  };
}

function unauthorized(message: string): DomainError {
  return new DomainError('unauthorized', message);
}

/** The bearer token of an Authorization header value. */
export function bearerOf(value: string | null): string | undefined {
  return value?.startsWith('Bearer ') ? value.slice(7) : undefined;
}

/**
 * Client side: adds this service's token for the callee to every call, carrying the actor
 * of the request being served (the request context's, which the gateway sets once it has
 * authenticated the key), else the actor of the message, if any, and the digest of the call
 * (requestDigest). It runs last before the transport, after every interceptor that sets a header
 * the digest covers.
 */
export function attachServiceToken(sign: TokenSigner, audience: ServiceName): Interceptor {
  return (next) => async (req) => {
    const sent = req.stream ? undefined : (req.message as { actor?: Actor }).actor;
    const actor = requestContext.getStore()?.actor ?? (sent && claimsOf(sent));
    const digest = req.stream ? undefined : requestDigest(req);
    req.header.set(
      'authorization',
      `Bearer ${await sign(audience, actor, `${req.service.typeName}/${req.method.name}`, digest)}`,
    );
    return next(req);
  };
}

/** Who may call a method, and where its actor comes from. */
export interface MethodPolicy {
  callers: readonly ServiceName[];
  /**
   * `token` (the default): a message's `actor` is replaced by the token's, and a message's
   * `apiKeyId` must be the token actor's. `message`: the caller vouches for the actor it
   * sends (a settings session's user). `signed`: the caller vouches for an actor it verified
   * earlier (a forwarded audit record), which its token must carry: a message naming another
   * actor is refused, the message's actor is the token's, and its key is not checked again
   * (it may have been revoked since the write the record tells of).
   */
  actorFrom?: 'token' | 'message' | 'signed';
}

/** What a service's interceptor needs: its verifier, its policy, and (core) the check that an actor is still current. */
export interface CallerTrust {
  verify: TokenVerifier;
  /**
   * The policy of `Service/Method` (typeName/name); undefined: the method is served to no caller
   * (default deny: `servedRpcs` lists what a backend serves).
   */
  policyOf(method: string): MethodPolicy | undefined;
  /**
   * Resolves a token's actor to the key's current one, refusing a revoked key (401) and an
   * actor whose grants changed since the token was signed. Only the service owning API keys has it.
   */
  currentActor?(claims: ActorClaims): Promise<ActorClaims>;
  /**
   * The rules of the RPCs the gateway calls for API keys, by `Service/Method`: a gateway call of one
   * is refused unless its actor (the key's current one, where `currentActor` resolves it) meets the
   * rule (403), and then unless its body and query meet the rule's schemas (400 validation_error).
   * Default: the operation table's (OPERATION_RULES); a unit test gives its own.
   */
  rules?: Readonly<Record<string, OperationRule>>;
}

/**
 * Server side: refuses a call without a valid token from an allowed caller (401
 * unauthorized, 403 forbidden), puts the verified actor on the request message, and
 * checks a gateway call against its operation's rule (403, then 400 for its input). It runs
 * inside the server's observing interceptor, which turns its DomainErrors into Connect errors.
 */
export function requireServiceToken(trust: CallerTrust): Interceptor {
  return (next) => async (req) => {
    const token = bearerOf(req.header.get('authorization'));
    if (!token) throw unauthorized('this service answers only calls with a service token');
    const name = `${req.service.typeName}/${req.method.name}`;
    const call = await trust.verify(token);
    // A token opens the one method it was signed for: captured, it cannot be replayed to another.
    if (call.method !== name) throw unauthorized(`the service token is not for ${name}`);
    // And the one request: the digest of the message as decoded, before anything is bound into it.
    if (!req.stream && !sameDigest(call.digest, requestDigest(req)))
      throw unauthorized('the service token is not for this request');
    const policy = trust.policyOf(name);
    if (!policy) throw new DomainError('forbidden', `${name} is served to no caller`);
    if (!policy.callers.includes(call.caller)) throw new DomainError('forbidden', `${call.caller} may not call ${name}`);
    req.contextValues.set(verifiedCallKey, call);
    const rule = call.caller === 'gateway' ? (trust.rules ?? OPERATION_RULES)[name] : undefined;
    // Who called, for a handler that records it (a forwarded audit record names its service).
    const context = requestContext.getStore();
    if (context) context.caller = call.caller;
    if (!req.stream && policy.actorFrom === 'signed') {
      bindSignedActor(req.message as { actor?: Actor }, call);
    } else if (!req.stream && (policy.actorFrom ?? 'token') === 'token') {
      const actor = await bindActor(
        req.message as { actor?: Actor; apiKeyId?: string },
        req.method.input.field,
        call,
        trust,
        req.header,
      );
      if (rule) enforceRule(rule, actor ?? call.actor ?? noActor());
    } else if (rule) {
      enforceRule(rule, call.actor ?? noActor());
    }
    // Then the input, as the gateway validates it after authorizing: a body or query the route would refuse
    // is answered 400 validation_error here too, never handed to a handler that trusts it (bodyOf).
    if (rule && !req.stream) enforceInput(rule, req.message as { body?: JsonObject; query?: JsonObject });
    return next(req);
  };
}

function sameDigest(signed: string | undefined, computed: string): boolean {
  if (signed === undefined || signed.length !== computed.length) return false;
  return timingSafeEqual(Buffer.from(signed), Buffer.from(computed));
}

function noActor(): never {
  throw unauthorized('this call needs a token carrying an actor');
}

/**
 * `signed`: the message's actor is the token's. One naming another organization, key or user is refused,
 * so a token captured for one actor's record cannot write into another's trail (issue 37).
 */
function bindSignedActor(message: { actor?: Actor }, call: VerifiedCall): void {
  if (!call.actor) throw unauthorized('this call needs a token carrying an actor');
  const sent = message.actor;
  if (
    sent &&
    (sent.organizationId !== call.actor.organizationId ||
      sent.apiKeyId !== call.actor.apiKeyId ||
      sent.userId !== call.actor.userId)
  ) {
    throw new DomainError('forbidden', 'the actor is not the token actor’s');
  }
  message.actor = create(ActorSchema, { ...claimsOf(call.actor), requestId: sent?.requestId ?? '' });
}

/** Puts the token's actor (the key's current one, with `currentActor`) on the message; answers the actor it bound. */
async function bindActor(
  message: { actor?: Actor; apiKeyId?: string },
  fields: Record<string, unknown>,
  call: VerifiedCall,
  trust: CallerTrust,
  header: Headers,
): Promise<ActorClaims | undefined> {
  const wantsActor = 'actor' in fields;
  const wantsKey = 'apiKeyId' in fields;
  if (!wantsActor && !wantsKey) return undefined;
  if (!call.actor) throw unauthorized('this call needs a token carrying an actor');
  if (wantsKey && message.apiKeyId !== call.actor.apiKeyId) {
    throw new DomainError('forbidden', 'the apiKeyId is not the token actor’s');
  }
  if (!wantsActor) return call.actor;
  const current = trust.currentActor ? await trust.currentActor(call.actor) : call.actor;
  message.actor = create(ActorSchema, { ...claimsOf(current), requestId: header.get('x-request-id') ?? '' });
  return current;
}

/** The RPCs a backend serves besides the operation table's, by `Service/Method`, each with who may call it and how. */
export type InternalRpcs = Readonly<Record<string, MethodPolicy>>;

const FOR_THE_GATEWAY: MethodPolicy = { callers: ['gateway'] };

/**
 * Default deny (docs/security.md, "Behind the edge"): the policy of each RPC `service` serves. An RPC
 * of its package that an operation of the table runs is the gateway's, for the API key whose actor
 * its token carries (its rule in OPERATION_RULES); an internal one has the policy `internal` lists
 * for it; any other (one added to a proto file and listed nowhere, or another backend's) is
 * served to no caller.
 */
export function servedRpcs(service: ServiceName, internal: InternalRpcs = {}): (method: string) => MethodPolicy | undefined {
  const own = `cluster.${service}.`;
  for (const method of Object.keys(internal))
    if (!method.startsWith(own) || OPERATION_RULES[method])
      throw new Error(`${method}: not an internal RPC of the ${service} service`);
  return (method) => internal[method] ?? (method.startsWith(own) && OPERATION_RULES[method] ? FOR_THE_GATEWAY : undefined);
}
