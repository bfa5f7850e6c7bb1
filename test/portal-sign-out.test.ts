import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { accessibilityProblems } from './support/axe.ts';

// The portal's "Sign out" as its users meet it (docs/portal.md, "Ending a session"): a real headless
// Chromium against the real cluster, as test/portal-browser.test.ts drives the other pages. The
// button ends the session on the server (its old cookie is refused afterwards), the browser's cookies
// are gone, and the signed-out page has no serious or critical axe-core violation.
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let c: TestCluster;
let org: SeededOrg;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(EXECUTABLE)) throw new Error(`no Chromium at ${EXECUTABLE}: apt-get install chromium, or set CHROMIUM_PATH`);
  c = await startTestCluster();
  org = await c.seedOrg('Portal sign-out');
  origin = new URL(c.baseUrl).origin;
  browser = await chromium.launch({
    executablePath: EXECUTABLE,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await c?.stop();
});

describe('signing out of the portal in a browser', () => {
  for (const access of ['manage', 'read-only'] as const) {
    it(`ends a ${access} session on the server, clears its cookies and says so`, async () => {
      const minted = await c.api(org.key, 'POST', '/portal-sessions', { access });
      expect(minted.status).toBe(201);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(`${origin}${minted.body.url as string}`);
        await page.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor();
        const before = await context.cookies();
        const session = before.find((k) => k.name === 'portal_session')!;
        expect(session.value).toMatch(/^pts_/);
        const cookie = before.map((k) => `${k.name}=${k.value}`).join('; ');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
        await page.getByText('Your portal session has ended').waitFor();
        expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
        expect((await context.cookies()).map((k) => k.name)).toEqual([]);
        expect(await accessibilityProblems(page)).toEqual([]);

        // The cookie the browser held is refused by the server now: the session ended there, not only here.
        expect((await fetch(`${origin}/portal/session`, { headers: { cookie } })).status).toBe(401);
        expect((await fetch(`${origin}/portal/api/v1/webhooks`, { headers: { cookie } })).status).toBe(401);
        const listed = await c.api(org.key, 'GET', '/portal-sessions?pageSize=100');
        expect((listed.body.data as { id: string }[]).map((s) => s.id)).not.toContain(minted.body.id);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
