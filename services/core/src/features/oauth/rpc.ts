import type { ServiceImpl } from '@connectrpc/connect';
import type { OAuthService } from '@cluster/proto';
import { oauthError, type IssuedTokens, type OAuthGrants } from './grants.ts';

const json = (bytes: Uint8Array): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw oauthError('invalid_request', 'client metadata must be a JSON object');
};
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const tokens = (t: IssuedTokens) => ({
  accessToken: t.accessToken,
  expiresIn: t.expiresIn,
  refreshToken: t.refreshToken,
  scopes: t.scopes,
});

/** OAuthService over Connect: the gateway's OAuth endpoints ask it (docs/mcp.md, "Signing in"). */
export function oauthRpc(grants: OAuthGrants): ServiceImpl<typeof OAuthService> {
  return {
    async registerClient(req) {
      const metadata = json(req.metadata);
      await grants.registerClient(metadata);
      return { metadata: bytes(metadata) };
    },
    async getClient(req) {
      return { metadata: bytes(await grants.client(req.clientId)) };
    },
    async approve(req) {
      return grants.approve({
        key: req.key,
        clientId: req.clientId,
        scopes: req.scopes,
        redirectUri: req.redirectUri,
        codeChallenge: req.codeChallenge,
        resource: req.resource,
      });
    },
    async exchangeCode(req) {
      return tokens(
        await grants.exchangeCode({
          code: req.code,
          clientId: req.clientId,
          redirectUri: req.redirectUri,
          codeVerifier: req.codeVerifier,
          resource: req.resource,
        }),
      );
    },
    async refresh(req) {
      return tokens(await grants.refresh({ refreshToken: req.refreshToken, clientId: req.clientId, scopes: req.scopes }));
    },
    async revoke(req) {
      await grants.revoke({ token: req.token, clientId: req.clientId });
      return {};
    },
  };
}
