import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';

// The platform's GitHub App (docs/evidence.md, "Platform verification with a GitHub App"): the
// evidence service reads GitHub's own record of a repository through it, so that a fact a webhook
// (signed with the organization's secret) asserts can be confirmed by the platform. Octokit's
// auth-app makes the app's JWT (RS256 with the app's private key) and the installation tokens, and
// keeps those until shortly before they expire.

/** The GitHub App's settings (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_API_URL). */
export interface GithubAppConfig {
  appId: string;
  /** PEM, PKCS#1 (as GitHub hands it out) or PKCS#8. */
  privateKey: string;
  /** https://api.github.com, or a GitHub Enterprise Server's `https://<host>/api/v3`: operator config, trusted. */
  apiUrl: string;
}

/** What GitHub answered a read: its JSON, or that there is no such record. */
export type GithubRead = { found: true; data: unknown } | { found: false };

/** Reads of GitHub's REST API for one repository, as the App's installation on it. */
export interface GithubApi {
  /**
   * GET `route` (an Octokit route such as `GET /repos/{owner}/{repo}/pulls/{pull_number}`) of the
   * repository `owner/name`, with the token of the App's installation on it. Undefined when the App is
   * not installed on the repository; `{found: false}` on GitHub's 404; any other failure throws.
   */
  read(
    repository: string,
    route: string,
    params: Record<string, string | number>,
    signal: AbortSignal,
  ): Promise<GithubRead | undefined>;
}

/** Read-only permissions of the installation tokens: what the checks read, nothing else. */
const TOKEN_PERMISSIONS = { checks: 'read', pull_requests: 'read', contents: 'read', actions: 'read', metadata: 'read' };
/** How long a repository's installation id is remembered (an uninstall shows within it). */
const INSTALLATION_KEEP_MS = 10 * 60_000;

/** Whether `err` is Octokit's RequestError of an HTTP answer `status`. */
const isStatus = (err: unknown, status: number) =>
  typeof err === 'object' && err !== null && (err as { status?: unknown }).status === status;

/** The GitHub App client: installation per repository (GET /repos/{owner}/{repo}/installation), then token reads. */
export function createGithubApp(config: GithubAppConfig, clock: () => number = Date.now): GithubApi {
  const request = octokitRequest.defaults({
    baseUrl: config.apiUrl.replace(/\/+$/, ''),
    headers: { 'user-agent': 'feedback-cluster-evidence', 'x-github-api-version': '2022-11-28' },
  });
  const auth = createAppAuth({ appId: config.appId, privateKey: config.privateKey, request });
  const installations = new Map<string, { id: number | null; at: number }>();

  async function installationOf(owner: string, repo: string, signal: AbortSignal): Promise<number | null> {
    const key = `${owner}/${repo}`.toLowerCase();
    const known = installations.get(key);
    if (known && clock() - known.at < INSTALLATION_KEEP_MS) return known.id;
    const { token } = await auth({ type: 'app' });
    let id: number | null;
    try {
      const res = await request('GET /repos/{owner}/{repo}/installation', {
        owner,
        repo,
        headers: { authorization: `bearer ${token}` },
        request: { signal },
      });
      id = (res.data as { id: number }).id;
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      id = null;
    }
    installations.set(key, { id, at: clock() });
    return id;
  }

  return {
    async read(repository, route, params, signal) {
      const [owner, repo] = repository.split('/');
      const installationId = await installationOf(owner, repo, signal);
      if (installationId === null) return undefined;
      const { token } = await auth({
        type: 'installation',
        installationId,
        repositoryNames: [repo],
        permissions: TOKEN_PERMISSIONS,
      });
      try {
        const res = await request(route, {
          owner,
          repo,
          ...params,
          headers: { authorization: `token ${token}` },
          request: { signal },
        });
        return { found: true, data: res.data };
      } catch (err) {
        if (isStatus(err, 404)) return { found: false };
        throw err;
      }
    },
  };
}
