import {
  SERVICE_NAMES,
  devServiceKeys,
  publicKeyFromRaw,
  signingKeyFromSeed,
  type ServiceKeys,
  type ServiceName,
} from '../service-auth.ts';
import { isDevelopmentKey } from '../development-keys.ts';
import { DEVELOPMENT_SWITCH } from './process.ts';
import { developmentKeyError } from './sealing-keys.ts';
import { ConfigError, int, optionalStr, str } from './values.ts';

// Where a service listens, the other services' URLs, and the keys of the service tokens (docs/security.md).

/** Base URLs of the backend services, as the gateway and CLI see them. */
export function serviceUrls() {
  return {
    core: str('CORE_URL', `http://127.0.0.1:${int('CORE_PORT', 50051)}`),
    delivery: str('DELIVERY_URL', `http://127.0.0.1:${int('DELIVERY_PORT', 50052)}`),
    evidence: str('EVIDENCE_URL', `http://127.0.0.1:${int('EVIDENCE_PORT', 50053)}`),
  };
}

/**
 * Where a service listens and the keys of its service tokens (docs/security.md).
 * LISTEN_HOST: 127.0.0.1 unless configured (Kubernetes sets 0.0.0.0).
 * SERVICE_SIGNING_KEY: this service's Ed25519 seed, 32 bytes in base64.
 * SERVICE_PUBLIC_KEYS: `name:<base64 public key>,...` of the services it accepts calls from
 * (one service may be listed twice while its key is rotated).
 * In development, unset keys fall back to the development keys (derived from public
 * constants); anywhere else both are required and no development key is accepted in either.
 */
export function readServiceConfig(self: ServiceName, development: boolean) {
  return { listenHost: str('LISTEN_HOST', '127.0.0.1'), serviceKeys: readServiceKeys(self, development) };
}
export type ServiceConfig = ReturnType<typeof readServiceConfig>;

function readServiceKeys(self: ServiceName, development: boolean): ServiceKeys {
  const seed = optionalStr('SERVICE_SIGNING_KEY');
  const listed = optionalStr('SERVICE_PUBLIC_KEYS');
  if (!development) {
    if (!seed || !listed)
      throw new ConfigError(`SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required unless ${DEVELOPMENT_SWITCH}`);
    if (isDevelopmentKey(seed)) throw developmentKeyError('SERVICE_SIGNING_KEY');
    if (listed.split(',').some((entry) => isDevelopmentKey(entry.split(':')[1]?.trim() ?? '')))
      throw developmentKeyError('SERVICE_PUBLIC_KEYS');
  }
  const dev = devServiceKeys(self);
  const signingKey = seed ? signingKeyFromSeed(key32('SERVICE_SIGNING_KEY', seed)) : dev.signingKey;
  const publicKeys = listed ? parsePublicKeys(listed) : dev.publicKeys;
  // A list given but holding no key (`,` or spaces) would refuse every call, or, read as "unset", take the
  // development keys: neither is meant (issue 37).
  if (publicKeys.length === 0)
    throw new ConfigError('SERVICE_PUBLIC_KEYS lists no key: name at least one <service>:<base64 key>');
  return { self, signingKey, publicKeys };
}

function parsePublicKeys(value: string): ServiceKeys['publicKeys'] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, b64] = entry.split(':');
      if (!(SERVICE_NAMES as readonly string[]).includes(name) || !b64) {
        throw new ConfigError(`SERVICE_PUBLIC_KEYS: "${name}" is not of the form <service>:<base64 key> with a known service`);
      }
      return { service: name as ServiceName, key: publicKeyFromRaw(key32('SERVICE_PUBLIC_KEYS', b64)) };
    });
}

/** 32 bytes given in base64, or a ConfigError naming the setting. */
function key32(name: string, b64: string): Buffer {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== 32) throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`);
  return bytes;
}
