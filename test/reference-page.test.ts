import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@cluster/gateway';
import { startTestCluster, type TestCluster } from './support/cluster.ts';

// The API reference page as an integrator opens it: a real headless browser (Debian's Chromium,
// driven by playwright-core) loads /api/v1/docs from the gateway, with nothing from a CDN. The page
// is rendered at build time (scripts/lib/reference-page.mjs): its content is in the HTML.
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HEADINGS = ['Authentication', 'Errors', 'Pagination', 'Idempotency', 'Rate limits', 'Webhooks'];
let c: TestCluster;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(EXECUTABLE)) throw new Error(`no Chromium at ${EXECUTABLE}: apt-get install chromium, or set CHROMIUM_PATH`);
  c = await startTestCluster({ withoutDelivery: true });
  browser = await chromium.launch({ executablePath: EXECUTABLE, args: ['--no-sandbox'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await c?.stop();
});

/** A section's heading (its accessible name includes its anchor's label, so by its text). */
const heading = (page: Page, text: string) =>
  page
    .locator('h1, h2')
    .filter({ hasText: new RegExp(`^${text}\\s*$`) })
    .first();

/** Text as HTML escapes it (React's server rendering). */
const escaped = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#x27;').replace(/"/g, '&quot;');

describe('the API reference page', () => {
  it('is served as HTML that holds the introduction, every operation and its code samples, with no inline script', async () => {
    const res = await fetch(`${c.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    const html = await res.text();
    for (const heading of HEADINGS) expect(html, heading).toMatch(new RegExp(`<h2[^>]*><a[^>]*></a>${heading}</h2>`));
    const missing = routes.filter((r) => !html.includes(escaped(r.summary))).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // The first sample of each operation is in the HTML (highlighted: its text, without the markup);
    // the others are in the page's document, shown by the live page's tabs (below).
    const text = html.replace(/<[^>]+>/g, '');
    expect(text).toContain('curl -X POST "$FEEDBACK_API_URL/api/v1/projects/$PROJECT_ID/entries"');
    const reference = await (await fetch(`${c.baseUrl}/docs/reference.json`)).text();
    expect(reference).toContain('client.entries.create(process.env.PROJECT_ID, {');
    expect(reference).toContain('urllib.request.Request(');
    // Every script is a file of this gateway (the CSP allows no other).
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attrs, body]) => (body.trim() ? 'inline' : attrs.trim()))).toEqual([
      'src="/api/v1/docs/redoc.standalone.js"',
      'src="/api/v1/docs/page.js"',
    ]);
    for (const file of ['redoc.standalone.js', 'page.js', 'reference.json'])
      expect((await fetch(`${c.baseUrl}/docs/${file}`)).status, file).toBe(200);
  });

  it('shows its content without running a script: the introduction, and an operation with its samples by its link', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${c.baseUrl}/docs`, { waitUntil: 'load' });
    await expect(heading(page, 'Authentication').isVisible()).resolves.toBe(true);
    await page.goto(`${c.baseUrl}/docs#operation/postProjects/IdEntries`, { waitUntil: 'load' });
    await expect(heading(page, 'Create an entry').isVisible()).resolves.toBe(true);
    const curl = page.locator('pre').filter({ hasText: 'curl -X POST "$FEEDBACK_API_URL/api/v1/projects/$PROJECT_ID/entries"' });
    await expect(curl.first().isVisible()).resolves.toBe(true);
    await context.close();
  }, 60_000);

  it('renders every operation of the OpenAPI document, from this gateway alone, without a console error', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page: ${err.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('request', (r) => origins.add(new URL(r.url()).origin));

    const base = c.baseUrl.replace('/api/v1', '');
    const res = await page.goto(`${c.baseUrl}/docs`, { waitUntil: 'networkidle' });
    expect(res?.status()).toBe(200);
    // The page shows its content at once (rendered on the server), then Redoc's live page replaces it.
    await expect(heading(page, 'Authentication').isVisible()).resolves.toBe(true);
    await page.waitForFunction(
      () => document.querySelectorAll('#redoc').length === 1 && !document.querySelector('#redoc[style]'),
      undefined,
      {
        timeout: 30_000,
      },
    );

    // Every operation is in the menu and in the body (collapsed groups are in the page, not shown).
    const text = (await page.locator('body').textContent()) ?? '';
    const missing = routes.filter((r) => !text.includes(r.summary)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // The live page's sample tabs switch languages.
    await page.goto(`${c.baseUrl}/docs#operation/postProjects/IdEntries`, { waitUntil: 'networkidle' });
    const section = page.locator('[id="operation/postProjects/IdEntries"]');
    await section.getByRole('tab', { name: 'Python' }).click();
    await expect(section.locator('pre').filter({ hasText: 'urllib.request.urlopen(request)' }).first().isVisible()).resolves.toBe(
      true,
    );
    expect([...origins].filter((o) => o !== base && o !== 'null' && !o.startsWith('blob:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
