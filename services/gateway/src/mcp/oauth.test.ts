import { describe, expect, it } from 'vitest';
import { redirectSource } from './oauth.ts';

describe("the consent page's form-action source", () => {
  it('is the origin of a web redirect URI and the scheme of a native app’s (whose origin is the opaque "null")', () => {
    expect(redirectSource('https://assistant.example/oauth/callback?x=1')).toBe('https://assistant.example');
    expect(redirectSource('http://127.0.0.1:33418/callback')).toBe('http://127.0.0.1:33418');
    expect(redirectSource('vscode://vscode.github-authentication/did-authenticate')).toBe('vscode:');
    expect(redirectSource('cursor://anysphere.cursor-retrieval/oauth/callback')).toBe('cursor:');
    expect(new URL('vscode://x/y').origin).toBe('null');
  });
});
