/**
 * GraphiQL end to end, in a real (headless) Chromium: the page served at /graphql loads without any
 * CDN, takes an API key in its Headers editor and runs the default query against the demo data.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const chromiumPath = '/usr/bin/chromium';
const screenshotPath = '/tmp/graphiql.png';

/** What a Monaco editor shows, without line numbers; Monaco renders spaces as U+00A0. */
async function textOf(editor: Locator): Promise<string> {
  return ((await editor.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
}

let t: TestApp;
let browser: Browser | undefined;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GraphiQL', () => {
  it('runs the default query with an API key typed into the Headers editor', async () => {
    if (!existsSync(chromiumPath))
      throw new Error(
        `Chromium is missing at ${chromiumPath}: this test drives GraphiQL in a real browser. ` +
          'Install it with: apt-get install -y --no-install-recommends chromium (.ci/run does this).',
      );
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const foreign: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${t.url}/`) && !/^(blob|data):/.test(url)) foreign.push(url);
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const landing = await page.goto(`${t.url}/graphql`);
    expect(landing?.status()).toBe(200);
    expect(landing?.headers()['content-type']).toContain('text/html');

    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
    await queryEditor.waitFor({ timeout: 20_000 });
    await expect.poll(() => textOf(queryEditor)).toContain('RecentMeetings');

    // The Headers editor comes prefilled with a placeholder; replace it with a real key.
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor');
    await headersEditor.waitFor();
    await expect.poll(() => textOf(headersEditor)).toContain('<your API key>');
    await headersEditor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ 'X-Api-Key': keyOf('account admin') }));
    await page.keyboard.press('Home');
    await expect
      .poll(async () => (await textOf(headersEditor)).replace(/\s+/g, ''))
      .toBe(`{"X-Api-Key":"${keyOf('account admin')}"}`);

    const executed = page.waitForResponse(
      (res) =>
        res.url() === `${t.url}/graphql` && (res.request().postData() ?? '').includes('RecentMeetings'),
    );
    await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    const response = await executed;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('x-api-key')).toBe(keyOf('account admin'));

    const result = page.locator('.graphiql-response');
    await expect.poll(() => textOf(result), { timeout: 10_000 }).toContain('alice.moreau@acme.test');
    const shown = await textOf(result);
    expect(shown).toContain('Alice Moreau');
    expect(shown).toContain('recordingId');
    expect(shown).not.toContain('"errors"');

    await page.screenshot({ path: screenshotPath });
    expect(foreign, 'GraphiQL must not load anything from outside the server').toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
