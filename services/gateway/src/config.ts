import {
  ConfigError,
  DEVELOPMENT_SWITCH,
  int,
  list,
  optionalStr,
  readProcessConfig,
  readServiceConfig,
  serviceUrls,
  str,
} from '@cluster/platform';

/**
 * PUBLIC_BASE_URL: the gateway's public origin (https://api.example.com), which the tool-protocol
 * metadata and WWW-Authenticate name. Required outside development: taken from the request's Host,
 * a client could make the gateway name any server as its own. In development it may be unset (the
 * endpoint then names the request's Host, loopback hosts only: mcp/endpoint.ts).
 */
export function publicBaseUrl(development: boolean): string | undefined {
  const raw = optionalStr('PUBLIC_BASE_URL');
  if (raw === undefined) {
    if (development) return undefined;
    throw new ConfigError(
      `PUBLIC_BASE_URL is required unless ${DEVELOPMENT_SWITCH} (the gateway's public URL, https://api.example.com)`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got ${raw}`);
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare)
    throw new ConfigError(`PUBLIC_BASE_URL must be an origin (scheme, host and port only), got ${raw}`);
  return url.origin;
}

/** Gateway configuration, read once at boot (the names of README, "Configuration"). */
export function readGatewayConfig() {
  const common = readProcessConfig();
  return {
    ...common,
    ...readServiceConfig('gateway', common.development),
    port: int('GATEWAY_PORT', 8080, 0, 65535),
    /** Prometheus' port: /metrics is served here only, never on the public API port (Kubernetes: the Ingress does not route to it). */
    metricsPort: int('GATEWAY_METRICS_PORT', 9464, 0, 65535),
    redisUrl: optionalStr('REDIS_URL'),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 600, 1),
    /** Failed authentications a client address may make per minute; over it, failed attempts answer 429 (valid keys go through). */
    authFailureLimitPerMinute: int('AUTH_FAILURE_LIMIT_PER_MINUTE', 120, 1),
    /** Proxies in front of the gateway whose X-Forwarded-For names the client (0: none, use the peer address). */
    trustedProxyHops: int('TRUSTED_PROXY_HOPS', 0, 0, 10),
    services: serviceUrls(),
    /** The deadline of a call to a backend: a frozen one is answered 503 `unavailable` after it (docs/runbook.md). */
    backendTimeoutMs: int('BACKEND_TIMEOUT_MS', 10_000, 100),
    /** The tool-protocol endpoint (/mcp, docs/mcp.md). */
    mcp: {
      /** Browser origins allowed to call /mcp (none by default; a request without Origin is always allowed). */
      allowedOrigins: list('MCP_ALLOWED_ORIGINS', ''),
      /**
       * In development with MCP_ALLOWED_ORIGINS unset, pages served from loopback (localhost,
       * 127.0.0.1, [::1], any port) may call /mcp too, as the MCP SDK's own DNS-rebinding guard allows.
       */
      allowLoopbackOrigins: common.development && !optionalStr('MCP_ALLOWED_ORIGINS'),
      privacyPolicyUrl: str('PRIVACY_POLICY_URL', 'https://feedback.example.com/privacy'),
      /** OAuth authorization servers named in the protected-resource metadata (none: the gateway's own sign-in, mcp/oauth.ts). */
      authorizationServers: list('MCP_AUTHORIZATION_SERVERS', ''),
      /** The gateway's public origin (https://api.example.com); unset only in development (publicBaseUrl). */
      publicBaseUrl: publicBaseUrl(common.development),
    },
  };
}
export type GatewayConfig = ReturnType<typeof readGatewayConfig>;
