/**
 * The REST reference end to end, in a real (headless) Chromium: from the home page a developer
 * follows the link to the reference and finds every endpoint of the route table there, rendered
 * from the OpenAPI document this server serves, with nothing loaded from outside the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-compat/index.js';
import { demoPersonas } from '../../seeds/index.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testBrowser } from '../support/browser.js';

let t: TestApp;
const browser = testBrowser();
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await browser.close();
  await t?.close();
});

describe('the REST reference page', () => {
  it('is linked from the home page and shows every endpoint of the route table', async () => {
    const { page, foreign, pageErrors, consoleErrors } = await browser.open(t.url, {
      width: 1400,
      height: 900,
    });

    const home = await page.goto(`${t.url}/`);
    expect(home?.status()).toBe(200);
    await page.getByRole('link', { name: 'REST reference' }).click();
    await page.waitForURL(`${t.url}/docs/rest`);

    // Every operation as one block: method, path and summary shown without expanding anything.
    const operations = page.locator('.opblock');
    await operations.first().waitFor({ timeout: 20_000 });
    for (const route of routes) {
      const block = operations.filter({
        has: page.locator(`.opblock-summary-path[data-path="${route.path}"]`),
      });
      const summary = block.filter({
        has: page.locator('.opblock-summary-method', { hasText: new RegExp(`^${route.method}$`) }),
      });
      await expect.poll(() => summary.count(), { message: `${route.method} ${route.path}` }).toBe(1);
      expect(await summary.locator('.opblock-summary-description').textContent()).toBe(route.summary);
    }

    // Opening one shows its parameters from the document.
    const meetings = operations.filter({
      has: page.locator('.opblock-summary-path[data-path="/meetings"]'),
    });
    await meetings.locator('.opblock-summary').first().click();
    await expect.poll(() => meetings.locator('.parameters').count()).toBeGreaterThan(0);
    const parameters = (await meetings.locator('.parameters').first().textContent()) ?? '';
    for (const param of routes.find((r) => r.path === '/meetings' && r.method === 'GET')!.querySpecs)
      expect(parameters).toContain(param.name);

    expect(foreign, 'the reference must not load anything from outside the server').toEqual([]);
    expect([...pageErrors, ...consoleErrors]).toEqual([]);
  });

  it('runs GET /meetings with "Try it out" and "Execute" as it opens: the demo key, no parameter to fix', async () => {
    const { page, foreign, pageErrors, consoleErrors } = await browser.open(t.url, {
      width: 1280,
      height: 720,
    });
    await page.goto(`${t.url}/docs/rest`);
    const meetings = page.locator('.opblock-get').filter({
      has: page.locator('.opblock-summary-path[data-path="/meetings"]'),
    });
    await meetings.locator('.opblock-summary').first().click({ timeout: 20_000 });
    await meetings.getByRole('button', { name: 'Try it out' }).click();
    const executed = page.waitForResponse((res) => new URL(res.url()).pathname === '/external/v1/meetings');
    await meetings.getByRole('button', { name: 'Execute' }).click();
    const response = await executed;

    // Nothing typed: the demo admin's key came with the page, and no parameter was filled with an
    // example that does not fit this request (a cursor made for other filters was a 400).
    expect(await response.request().headerValue('x-api-key')).toBe(keyOf('account admin'));
    expect(response.status(), await response.text()).toBe(200);
    const body = await response.json();
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.length).toBeLessThanOrEqual(body.limit);

    // And the page shows the answer: 200 and the meetings.
    const live = meetings.locator('.live-responses-table');
    await expect
      .poll(() => live.locator('tr.response .response-col_status').first().textContent())
      .toBe('200');
    expect(await live.textContent()).toContain(`"recording_id": ${body.items[0].recording_id}`);

    expect(foreign).toEqual([]);
    expect([...pageErrors, ...consoleErrors]).toEqual([]);
  });
});

describe('the REST reference without the demo data', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp({ SEED_DEMO: 'false' });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('authorizes with no key: none of the demo keys is in the page or its script', async () => {
    for (const path of ['/docs/rest', '/docs/rest/start.js']) {
      const res = await fetch(`${bare.url}${path}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      for (const persona of demoPersonas) expect(text, path).not.toContain(persona.apiKey);
      expect(text).not.toContain('preauthorize');
    }
  });
});
