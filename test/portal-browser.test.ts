import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireEnv, startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';
import { accessibilityProblems } from './support/axe.ts';

// The integrator portal as its users see it (docs/portal.md): a real headless Chromium (driven by
// playwright-core, as the reference page's test drives it) against the real cluster, a real receiver
// and real embedding pages. Each page is checked with axe-core: no serious or critical violation.
// PORTAL_SCREENSHOTS=1 writes the screenshots docs/portal.md shows (docs/portal/*.png).
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.PORTAL_SCREENSHOTS === '1' ? path.resolve(import.meta.dirname, '../docs/portal') : undefined;
const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let origin: string;
let receiver: Receiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const servers: Server[] = [];

beforeAll(async () => {
  if (!existsSync(EXECUTABLE)) throw new Error(`no Chromium at ${EXECUTABLE}: apt-get install chromium, or set CHROMIUM_PATH`);
  c = await startTestCluster();
  org = await c.seedOrg('Portal browser');
  origin = new URL(c.baseUrl).origin;
  receiver = await receivers.start();
  browser = await chromium.launch({
    executablePath: EXECUTABLE,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  page = await context.newPage();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.close();
  await receivers.closeAll();
  await c?.stop();
});

async function mint(body: Record<string, unknown> = {}, key = org.key): Promise<string> {
  const res = await c.api(key, 'POST', '/portal-sessions', body);
  expect(res.status).toBe(201);
  return `${origin}${res.body.url as string}`;
}

async function shoot(name: string, fullPage = true) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
}

const goTo = async (name: string) => {
  await page.getByRole('navigation', { name: 'Portal pages' }).getByRole('button', { name }).click();
  await page.getByRole('heading', { level: 2, name }).waitFor();
};

async function newEntry(title: string): Promise<void> {
  const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' });
  expect(entry.status).toBe(201);
}

/** A page on 127.0.0.1 (same site as the gateway, another origin) that frames `src`. */
async function embedder(src: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Embedder</title></head><body><iframe title="Webhooks" src="${src}" width="1000" height="700"></iframe></body></html>`,
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the integrator portal in a browser', () => {
  let link: string;
  let secret: string;

  it('opens a portal link on the endpoints page, accessible, with no API key in the page', async () => {
    link = await mint();
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/portal/');
    await page.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    expect(await page.content()).not.toContain(org.key);
    expect(await accessibilityProblems(page)).toEqual([]);
  }, 60_000);

  it('creates an endpoint on a local receiver, its secret shown once with verification snippets', async () => {
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('local receiver');
    await page.getByRole('checkbox', { name: 'entry.created' }).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const shown = page.getByTestId('secret');
    await shown.waitFor();
    secret = (await shown.textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    // Waits for them (the list refetches after the create): fails if they never show.
    await page.getByText('@cluster/webhook-verify').first().waitFor({ state: 'visible' });
    await page.getByRole('cell', { name: receiver.url }).waitFor({ state: 'visible' });
    expect(await accessibilityProblems(page)).toEqual([]);
    await shoot('endpoints');
    await page.getByRole('button', { name: 'I have copied it' }).click();
  }, 60_000);

  it("edits the endpoint's description and events (PATCH), the list showing the change", async () => {
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit the endpoint' });
    expect(await form.getByLabel('Endpoint URL').inputValue()).toBe(receiver.url);
    await form.getByLabel('Description').fill('local receiver, edited');
    await form.getByRole('checkbox', { name: 'entry.updated' }).check();
    expect(await accessibilityProblems(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText('local receiver, edited').waitFor({ state: 'visible' });
    await page.getByRole('cell', { name: 'entry.created, entry.updated' }).waitFor({ state: 'visible' });
    const hooks = await c.api(org.key, 'GET', '/webhooks');
    expect(hooks.body.data).toMatchObject([
      { description: 'local receiver, edited', eventNames: ['entry.created', 'entry.updated'] },
    ]);
  }, 60_000);

  it('shows the delivery and its attempts, then a failure with the answer, and resends it', async () => {
    await newEntry('first');
    await receiver.waitFor(1);
    await goTo('Delivery log');
    const succeeded = page.locator('tr[data-status="succeeded"]').first();
    await succeeded.waitFor({ timeout: 20_000 });
    await succeeded.getByRole('button', { name: 'Show attempts' }).click();
    await page.locator('tr[data-outcome="succeeded"]').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);

    receiver.respond(() => ({ status: 500, body: 'receiver is down: boom' }));
    await newEntry('second');
    const failed = page.locator('tr[data-status="failed"]').first();
    await failed.waitFor({ timeout: 20_000 });
    await failed.getByRole('button', { name: 'Show attempts' }).click();
    const failedAttempt = page.locator('tr[data-outcome="failed"]').first();
    await failedAttempt.waitFor();
    expect(await failedAttempt.textContent()).toContain('receiver is down: boom');
    expect(await failedAttempt.textContent()).toContain('500');
    await shoot('delivery-log');

    receiver.respond(() => ({ status: 200, body: 'ok' }));
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.locator('.detail tr[data-outcome="succeeded"]').first().waitFor({ timeout: 20_000 });
  }, 90_000);

  it('recovers a window, rotates the secret and reads the health charts, by keyboard too', async () => {
    const since = new Date(Date.now() - 3_600_000);
    const local = new Date(since.getTime() - since.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('From').fill(local);
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByText(/^Recovery (running|completed)\.$/).waitFor();

    await goTo('Endpoints');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByTestId('secret');
    await shown.waitFor();
    const rotated = (await shown.textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    // Keyboard: the page buttons are reachable and work with Enter.
    await page.getByRole('button', { name: 'Health' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Health' }).waitFor();
    await page.getByRole('meter', { name: 'Success rate, last 24h' }).waitFor();
    // The charts over time, read as a screen reader would: their names and descriptions, then the numbers.
    const described = async (name: string) => {
      const chart = page.getByRole('img', { name });
      await chart.waitFor();
      return (await chart.locator('desc').textContent()) ?? '';
    };
    expect(await described('Success rate by hour, last day')).toMatch(
      /^\d+ of 24 hours with finished deliveries: [1-9]\d* delivered, \d+ failed/,
    );
    expect(await described('Attempt latency p50 and p99 by hour, last day')).toMatch(/latest p50 \d+ ms, p99 \d+ ms/);
    expect(await described('Success rate by day, last week')).toMatch(
      /^1 of 7 days with finished deliveries: [1-9]\d* delivered/,
    );
    expect(await described('Attempt latency p50 and p99 by day, last week')).toMatch(/^1 of 7 days with attempts/);
    await page.getByText('The numbers, by hour').click();
    const table = page.getByRole('table', { name: 'Deliveries and latency by hour, last day' });
    const [delivered, , rate, p50, p99] = (await table.locator('tbody tr').last().locator('td').allTextContents()).map((t) =>
      t.trim(),
    );
    expect(Number(delivered)).toBeGreaterThan(0);
    expect(rate).toMatch(/^\d+(\.\d)?%$/);
    expect(Number(p99)).toBeGreaterThanOrEqual(Number(p50));
    expect(await accessibilityProblems(page)).toEqual([]);
    await shoot('health');

    await goTo('Event catalogue');
    await page.getByText('Payload schema').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await shoot('event-catalogue', false);

    // The dark theme, checked too.
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await goTo('Endpoints');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await accessibilityProblems(page)).toEqual([]);
    await shoot('endpoints-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  }, 90_000);

  it('pages through the endpoints', async () => {
    // Ten more endpoints than the one: two pages of ten.
    for (let i = 0; i < 10; i++) {
      const made = await c.api(org.key, 'POST', '/webhooks', {
        destinationUrl: `${receiver.url}/more-${i}`,
        eventNames: ['release.created'],
      });
      expect(made.status).toBe(201);
    }
    // Away and back: the list is read again on the way in.
    await goTo('Delivery log');
    await goTo('Endpoints');
    const pager = page.getByRole('navigation', { name: 'Pages of endpoints' });
    await pager.getByText('Page 1 of 2').waitFor();
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(1);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText('Page 1 of 2').waitFor();
  }, 60_000);

  it("shows a failing endpoint's auto-disable countdown on the health page", async () => {
    const failing = await receivers.start();
    failing.respond(() => ({ status: 503, body: 'down for maintenance' }));
    const made = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: failing.url, eventNames: ['entry.created'] });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    await newEntry('to a failing endpoint');
    await failing.waitFor(1);
    await until(
      () => c.api(org.key, 'GET', `/webhooks/${id}`),
      (r) => typeof r.body.failingSince === 'string',
    );
    const stats = await c.api(org.key, 'GET', `/webhooks/${id}/stats`);
    const disablesAt = stats.body.disablesAt as string;
    expect(Date.parse(disablesAt)).toBeGreaterThan(Date.now());

    await goTo('Endpoints');
    await goTo('Health'); // read again on the way in
    const card = page.getByRole('article', { name: `Health of ${failing.url}` });
    const countdown = card.getByTestId('countdown');
    await countdown.getByText(/will be disabled in (\d+ d )?(\d+ h )?\d+ min/).waitFor({ timeout: 20_000 });
    expect(await countdown.locator('time').getAttribute('datetime')).toBe(disablesAt);
    expect(await card.locator('.badge').textContent()).toBe('failing');
    expect(await accessibilityProblems(page)).toEqual([]);
    if (SHOTS) await card.screenshot({ path: path.join(SHOTS, 'health-countdown.png') });
  }, 60_000);

  it('pages through the delivery log', async () => {
    // Two endpoints listen to entry.created: 13 entries make 26 more deliveries, over the 25 of a page.
    for (let i = 0; i < 13; i++) await newEntry(`paging ${i}`);
    const total = () => c.api(org.key, 'GET', '/webhook-deliveries?pageSize=1').then((r) => r.body.total as number);
    await until(total, (n) => n > 26, 20_000);
    await goTo('Delivery log');
    const pager = page.getByRole('navigation', { name: 'Pages of deliveries' });
    await pager.getByText(/^Page 1 of 2$/).waitFor({ timeout: 20_000 });
    const rows = page.locator('tr[data-status]');
    await expect.poll(() => rows.count()).toBe(25);
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    // The list refreshes every 3 s: it agrees with the API's total once the fan-out has made every delivery.
    await expect.poll(async () => (await rows.count()) === (await total()) - 25, { timeout: 20_000 }).toBe(true);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText('Page 1 of 2').waitFor();
    await expect.poll(() => rows.count()).toBe(25);
  }, 90_000);

  it('refuses the link a second time', async () => {
    const again = await context.newPage();
    const res = await again.goto(link);
    expect(res?.status()).toBe(401);
    await again.getByRole('heading', { name: 'This portal link cannot be opened' }).waitFor({ state: 'visible' });
    await again.close();
  });

  it('refuses an expired session', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    try {
      await p.goto(await mint({ lifetimeSeconds: 5 }));
      await p.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor({ timeout: 10_000 });
      await new Promise((r) => setTimeout(r, 5_500));
      await p.reload();
      await p.getByText(/Could not load your session/).waitFor({ timeout: 10_000 });
    } catch (err) {
      await p.screenshot({ path: '/tmp/portal-expired.png' });
      process.stderr.write(`expired-session page: ${p.url()}\n${await p.content()}\n`);
      throw err;
    }
    await other.close();
  }, 30_000);

  it('loads in an iframe of an allowed origin, and not in one of another origin', async () => {
    const allowedLink = await mint();
    const refusedLink = await mint();
    const allowed = await embedder(allowedLink);
    const refused = await embedder(refusedLink);
    expect((await c.api(org.key, 'PATCH', '/portal-settings', { frameAncestors: [allowed] })).status).toBe(200);
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(allowed);
    await p.frameLocator('iframe').getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor({ timeout: 20_000 });

    const blocked: string[] = [];
    const q = await ctx.newPage();
    q.on('console', (m) => blocked.push(m.text()));
    await q.goto(refused);
    await q.waitForTimeout(2_000);
    const frame = q.frames().find((f) => f !== q.mainFrame());
    const headings = frame
      ? await frame
          .getByRole('heading', { level: 2, name: 'Endpoints' })
          .count()
          .catch(() => 0)
      : 0;
    expect(headings).toBe(0);
    expect(blocked.join('\n')).toMatch(/frame-ancestors/);
    await ctx.close();
  }, 60_000);

  it("keeps a broker endpoint's destination when its description is edited, and shows a receiver's limits and pause", async () => {
    // An organization of its own: its two endpoints are the whole list.
    const other = await c.seedOrg('Portal destinations');
    const kafka = await c.api(other.key, 'POST', '/webhooks', {
      destination: { type: 'kafka', brokers: requireEnv().brokers, topic: 'portal-browser-destination' },
      eventNames: ['release.created'],
    });
    expect(kafka.status).toBe(201);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    await p.goto(await mint({}, other.key));
    await p.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor();
    await p.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = p.getByRole('form', { name: 'Edit the endpoint' });
    expect(await form.getByLabel('Endpoint URL').getAttribute('readonly')).not.toBeNull();
    await form.getByText(/delivers to a kafka destination/).waitFor();
    await form.getByLabel('Description').fill('to our Kafka');
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await form.waitFor({ state: 'detached' });
    const after = await c.api(other.key, 'GET', `/webhooks/${kafka.body.id as string}`);
    expect(after.body).toMatchObject({ description: 'to our Kafka', destination: { type: 'kafka' } });

    // A receiver that asked to be paused (429 with Retry-After), on an endpoint limited to 5 a second.
    const slow = await receivers.start();
    slow.respond(() => ({ status: 429, headers: { 'retry-after': '600' }, body: 'slow down' }));
    const limited = await c.api(other.key, 'POST', '/webhooks', {
      destinationUrl: slow.url,
      eventNames: ['entry.created'],
      rateLimit: 5,
    });
    expect(limited.status).toBe(201);
    const entry = await c.api(other.key, 'POST', `/projects/${other.projectId}/entries`, {
      title: 'x',
      description: '-',
      type: 'feedback',
    });
    expect(entry.status).toBe(201);
    await until(
      () => c.api(other.key, 'GET', `/webhooks/${limited.body.id as string}`),
      (r) => typeof r.body.pausedUntil === 'string',
      20_000,
    );
    await p.getByRole('navigation', { name: 'Portal pages' }).getByRole('button', { name: 'Health' }).click();
    const card = p.getByRole('article', { name: `Health of ${slow.url}` });
    const line = card.getByTestId('throttling');
    await line.getByText(/Paused at the receiver’s request/).waitFor({ timeout: 20_000 });
    expect(await line.textContent()).toMatch(/Limited to at most 5 deliveries a second/);
    expect(await accessibilityProblems(p)).toEqual([]);
    await ctx.close();
  }, 90_000);
  it("sets an endpoint's filter, ordering and rate limit in the form, shows the API's refusals by the filter, and clears it", async () => {
    // An organization of its own, so that its filter keeps nothing back from the endpoints above.
    const other = await c.seedOrg('Portal advanced settings');
    const target = await receivers.start();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    // What the page sends: the portal's writes to the webhooks, with their bodies.
    const writes: { method: string; body: unknown }[] = [];
    p.on('request', (r) => {
      if (r.method() !== 'GET' && /\/portal\/api\/v1\/webhooks(\/[^/]+)?$/.test(new URL(r.url()).pathname)) {
        writes.push({ method: r.method(), body: r.postDataJSON() as unknown });
      }
    });
    const hooks = async () => (await c.api(other.key, 'GET', '/webhooks')).body.data as Record<string, unknown>[];
    /** The text that describes a control (its aria-describedby), as a screen reader reads it after the name. */
    const description = (control: ReturnType<Page['getByLabel']>) =>
      control.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
    try {
      await p.goto(await mint({}, other.key));
      await p.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor();
      const create = p.getByRole('form', { name: 'Create an endpoint' });
      await create.getByLabel('Endpoint URL').fill(target.url);
      await create.getByRole('checkbox', { name: 'entry.created' }).check();
      await create.getByText('Advanced: ordering, throttling, filter').click();
      const filter = create.getByLabel('Filter (JSON)');

      // Not JSON: refused by the page, next to the field, and nothing is sent.
      await filter.fill('{"payload": {"type": "bug_report"}');
      await create.getByRole('button', { name: 'Create endpoint' }).click();
      await create.getByText(/The filter is not valid JSON/).waitFor();
      expect(await filter.getAttribute('aria-invalid')).toBe('true');
      expect(await description(filter)).toMatch(/The filter is not valid JSON .*Nothing was sent/);
      expect(writes).toEqual([]);
      expect(await accessibilityProblems(p)).toEqual([]);

      await filter.fill('{"payload": {"type": "bug_report"}}');
      await create.getByLabel('Ordering').selectOption('per_entity');
      await create.getByLabel('Rate limit').fill('20');
      await create.getByRole('button', { name: 'Create endpoint' }).click();
      await p.getByTestId('secret').waitFor();
      await p.getByRole('button', { name: 'I have copied it' }).click();
      expect(writes).toEqual([
        {
          method: 'POST',
          body: {
            destinationUrl: target.url,
            eventNames: ['entry.created'],
            signatureScheme: 'hmac-sha256',
            ordering: 'per_entity',
            rateLimit: 20,
            filter: { payload: { type: 'bug_report' } },
          },
        },
      ]);
      expect(await hooks()).toMatchObject([
        { filter: { payload: { type: 'bug_report' } }, ordering: 'per_entity', rateLimit: 20, maxInFlight: null },
      ]);
      const id = (await hooks())[0].id as string;
      // The list says why an event may not arrive, or arrive late.
      const rules = p.getByRole('row').filter({ hasText: target.url }).getByTestId('delivery-rules');
      await rules.getByText('Only events matching {"payload":{"type":"bug_report"}} are delivered.').waitFor();
      await rules.getByText(/In order per entity/).waitFor();

      // An event the filter keeps back: the health page counts it by the filter.
      const entry = await c.api(other.key, 'POST', `/projects/${other.projectId}/entries`, {
        title: 'not a bug',
        description: '-',
        type: 'feedback',
      });
      expect(entry.status).toBe(201);
      await until(
        () => c.api(other.key, 'GET', `/webhooks/${id}/stats`),
        (r) => r.body.filtered === 1,
        20_000,
      );
      const nav = p.getByRole('navigation', { name: 'Portal pages' });
      await nav.getByRole('button', { name: 'Health' }).click();
      const card = p.getByRole('article', { name: `Health of ${target.url}` });
      await card
        .getByTestId('delivery-rules')
        .getByText(/It kept back 1 event in the last day\./)
        .waitFor({ timeout: 20_000 });
      expect(await accessibilityProblems(p)).toEqual([]);
      await nav.getByRole('button', { name: 'Endpoints' }).click();

      // The edit form opens with the settings; an operator the syntax lacks is the API's 400, shown by the filter.
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = p.getByRole('form', { name: 'Edit the endpoint' });
      const edited = edit.getByLabel('Filter (JSON)');
      expect(JSON.parse(await edited.inputValue())).toEqual({ payload: { type: 'bug_report' } });
      expect(await edit.getByLabel('Ordering').inputValue()).toBe('per_entity');
      expect(await edit.getByLabel('Rate limit').inputValue()).toBe('20');
      expect(await edit.getByLabel('Most in flight').inputValue()).toBe('');
      writes.length = 0;
      await edited.fill('{"payload": {"status": {"$regex": "^op"}}}');
      await edit.getByRole('button', { name: 'Save endpoint' }).click();
      await edit.getByText(/unknown operator \$regex/).waitFor();
      expect(await edited.getAttribute('aria-invalid')).toBe('true');
      expect(await description(edited)).toMatch(/^.*At \/payload\/status\/\$regex: unknown operator \$regex/);
      // Only the filter was sent (the rest had not changed), and nothing was saved.
      expect(writes).toEqual([{ method: 'PATCH', body: { filter: { payload: { status: { $regex: '^op' } } } } }]);
      expect(await hooks()).toMatchObject([{ filter: { payload: { type: 'bug_report' } } }]);
      expect(await accessibilityProblems(p)).toEqual([]);
      if (SHOTS) await edit.screenshot({ path: path.join(SHOTS, 'endpoint-advanced.png') });

      // Cleared: `filter: null`, and only that; the ordering and the limit stay.
      writes.length = 0;
      await edited.fill('');
      await edit.getByRole('button', { name: 'Save endpoint' }).click();
      await edit.waitFor({ state: 'detached' });
      expect(writes).toEqual([{ method: 'PATCH', body: { filter: null } }]);
      expect(await hooks()).toMatchObject([{ filter: null, ordering: 'per_entity', rateLimit: 20 }]);
      await expect.poll(() => rules.getByText(/Only events matching/).count()).toBe(0);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
