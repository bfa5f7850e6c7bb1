import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@cluster/gateway';
import { startTestCluster, type TestCluster } from './support/cluster.ts';

// The API reference page as an integrator opens it: a real headless browser (Debian's Chromium,
// driven by playwright-core) loads /api/v1/docs from the gateway, with nothing from a CDN.
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let c: TestCluster;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(EXECUTABLE)) throw new Error(`no Chromium at ${EXECUTABLE}: apt-get install chromium, or set CHROMIUM_PATH`);
  c = await startTestCluster();
  browser = await chromium.launch({ executablePath: EXECUTABLE, args: ['--no-sandbox'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await c?.stop();
});

describe('the API reference page', () => {
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
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByText(routes[0].summary, { exact: true }).first().waitFor({ state: 'attached', timeout: 30_000 });

    // Every operation is in the menu and in the body (collapsed groups are in the page, not shown).
    const text = (await page.locator('body').textContent()) ?? '';
    const missing = routes.filter((r) => !text.includes(r.summary)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    expect([...origins].filter((o) => o !== base && o !== 'null' && !o.startsWith('blob:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
