/**
 * The shape of an API key, `fbk_<8-char id>_<40-char secret>`: the core looks a key up by its
 * prefix `fbk_<id>`, and the gateway refuses a key of any other shape without asking the core
 * when its address is over the failed-authentication limit. Declared once for both.
 */
const API_KEY_SHAPE = /^(fbk_[A-Za-z0-9]{8})_[A-Za-z0-9]{40}$/;

/** The display prefix of a presented key, or undefined when it is not of our shape. */
export function apiKeyPrefixOf(key: string): string | undefined {
  return API_KEY_SHAPE.exec(key)?.[1];
}

/**
 * The OAuth tokens of the tool-protocol endpoint's sign-in (docs/mcp.md, "Signing in"): an access
 * token `fbk_at_<43 chars>` (short-lived; sent as a bearer token where an API key goes) and a
 * refresh token `fbk_rt_<43 chars>`. Opaque: the core keeps their SHA-256.
 */
const OAUTH_TOKEN_SHAPE = /^fbk_(at|rt)_[A-Za-z0-9_-]{43}$/;

/** Which OAuth token `token` is by its shape, or undefined when it is none. */
export function oauthTokenKind(token: string): 'access' | 'refresh' | undefined {
  const kind = OAUTH_TOKEN_SHAPE.exec(token)?.[1];
  return kind === 'at' ? 'access' : kind === 'rt' ? 'refresh' : undefined;
}
