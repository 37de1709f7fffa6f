/**
 * The REST reference end to end, in a real (headless) Chromium: from the home page a developer
 * follows the link to the reference and finds every endpoint of the route table there, rendered
 * from the OpenAPI document this server serves, with nothing loaded from outside the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-compat/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
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
});
