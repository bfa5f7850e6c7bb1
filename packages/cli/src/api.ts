/** Where the API is and the key that calls it: `--api-url` / FEEDBACK_API_URL, `--api-key` / FEEDBACK_API_KEY. */
export interface ApiSettings {
  /** The API's base, `https://host/api/v1`. */
  base: string;
  key: string;
}

/** The settings from the flags, else the environment; an error naming what is missing. */
export function apiSettings(flags: { 'api-url'?: string; 'api-key'?: string }, env: NodeJS.ProcessEnv): ApiSettings {
  const url = flags['api-url'] ?? env.FEEDBACK_API_URL;
  const key = flags['api-key'] ?? env.FEEDBACK_API_KEY;
  if (!url) throw new Error('the API URL is missing: --api-url or FEEDBACK_API_URL (e.g. https://api.example.com)');
  if (!key) throw new Error('the API key is missing: --api-key or FEEDBACK_API_KEY (an organization key with write:webhook)');
  let origin: URL;
  try {
    origin = new URL(url);
  } catch {
    throw new Error(`the API URL is not an absolute URL: ${JSON.stringify(url)}`);
  }
  // The gateway's origin or the API's base both work, as for the SDK.
  const path = origin.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return { base: `${origin.origin}${path}/api/v1`, key };
}

/** The headers of every call. */
export const authHeaders = (api: ApiSettings): Record<string, string> => ({
  authorization: `Bearer ${api.key}`,
  'user-agent': 'cluster-cli/0.1.0',
});

/** An error answer's `reason: message` (the API's error body), or its status. */
export async function problemOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { reason?: string; message?: string; error?: string; invalid?: string[] };
    if (body.message) return `${res.status} ${body.reason ?? ''}: ${body.message}`;
    // Unknown event names answer {error, invalid} (docs/webhooks.md).
    if (body.error) return `${res.status} ${body.error}: ${(body.invalid ?? []).join(', ')}`;
  } catch {
    // not JSON: the status says it
  }
  return `${res.status} ${text.slice(0, 200)}`.trim();
}
