/**
 * GraphiQL on first open, in a real (headless) Chromium: the page served at /graphql loads without
 * any CDN, its Docs list the schema before anything was typed, and with the demo data its first
 * tab runs as it opens (the demo admin's key is prefilled) and shows real meeting content.
 */
import { parse, validate } from 'graphql';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset, demoMedia, demoPersonas } from '../../seeds/index.js';
import { API_KEY_PLACEHOLDER, graphiqlOptions } from '../../src/graphql/graphiql.js';
import { schema } from '../../src/graphql/schema/index.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testBrowser } from '../support/browser.js';

const screenshotPath = '/tmp/graphiql.png';
const adminKey = keyOf('account admin');
const tabNames = [
  'RecentMeetings',
  'MeetingPage',
  'SearchMeetings',
  'CreateWebhook',
  'Download',
  'ContentReady',
];

/** What a Monaco editor shows, without line numbers; Monaco renders spaces as U+00A0. */
async function textOf(editor: Locator): Promise<string> {
  return ((await editor.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
}

let t: TestApp;
const browser = testBrowser();
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await browser.close();
  await t?.close();
});

describe('GraphiQL with the demo data', () => {
  it('opens with the schema in Docs, no error, every example tab, and runs the first tab as it is', async () => {
    const { page, foreign, pageErrors, consoleErrors } = await browser.open(t.url);
    const introspection = page.waitForResponse(
      (res) => res.url() === `${t.url}/graphql` && (res.request().postData() ?? '').includes('__schema'),
    );
    const landing = await page.goto(`${t.url}/graphql`);
    expect(landing?.status()).toBe(200);
    expect((await introspection).status()).toBe(200);

    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
    await queryEditor.waitFor({ timeout: 20_000 });
    await expect.poll(() => textOf(queryEditor)).toContain('query RecentMeetings');
    await expect
      .poll(() => page.locator('.graphiql-tab-button').allTextContents())
      .toEqual(expect.arrayContaining(tabNames));

    // Nothing ran yet, and nothing was refused: the result pane is empty of errors.
    const result = page.locator('.graphiql-response');
    expect(await textOf(result)).not.toMatch(/error|not valid/i);

    // Docs list the schema: the Query type and its fields.
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByText('Query', { exact: true }).click();
    await expect
      .poll(() => docs.locator('.graphiql-doc-explorer-field-name').allTextContents())
      .toContain('meetings');
    expect(await docs.textContent()).not.toContain('Error fetching schema');

    // The headers come prefilled with the demo admin's key: run without typing anything.
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor');
    await expect.poll(() => textOf(headersEditor)).toContain(adminKey);
    const executed = page.waitForResponse(
      (res) =>
        res.url() === `${t.url}/graphql` && (res.request().postData() ?? '').includes('RecentMeetings'),
    );
    await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    const response = await executed;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('x-api-key')).toBe(adminKey);
    const answer = await response.json();
    expect(answer.errors).toBeUndefined();
    const meetings = answer.data.meetings.edges.map((e: { node: unknown }) => e.node);
    const complete = meetings.filter(
      (m: { defaultSummary: unknown; transcript: unknown[] | null }) =>
        m.defaultSummary && (m.transcript?.length ?? 0) > 0,
    );
    expect(complete.length, 'most of the first page has content').toBeGreaterThanOrEqual(3);

    // And the result pane shows it: the admin, transcript lines and, scrolling down past the
    // meetings still processing, a Markdown summary (Monaco renders only the lines in view).
    await expect.poll(() => textOf(result), { timeout: 10_000 }).toContain('alice.moreau@acme.test');
    const shown = await textOf(result);
    expect(shown).not.toContain('"errors"');
    expect(shown).toMatch(/"text": "\S/);
    await result.hover();
    const summaryShown = /"markdownFormatted": "#/;
    for (let i = 0; i < 100 && !summaryShown.test(await textOf(result)); i++) await page.mouse.wheel(0, 600);
    expect(await textOf(result)).toMatch(summaryShown);

    await page.screenshot({ path: screenshotPath });
    expect(foreign, 'GraphiQL must not load anything from outside the server').toEqual([]);
    expect([...pageErrors, ...consoleErrors]).toEqual([]);
  });

  it('has example tabs that all work for the demo admin', async () => {
    const downloadableRecordingId = demoMedia(demoDataset())[0]!.recordingId;
    const tabs = graphiqlOptions({ apiKey: adminKey, downloadableRecordingId }).defaultTabs ?? [];
    expect(tabs.map((tab) => tab.query?.match(/^(query|mutation|subscription) (\w+)/m)?.[2])).toEqual(
      tabNames,
    );
    for (const tab of tabs) {
      const query = tab.query ?? '';
      expect(query, 'each tab starts by saying what it shows').toMatch(/^# \S/);
      if (query.includes('subscription ')) {
        expect(validate(schema, parse(query))).toEqual([]); // runs over SSE; the browser test is above
        continue;
      }
      const res = await t.graphql(query, tab.variables ? JSON.parse(tab.variables) : undefined, adminKey);
      expect(res.body.errors, query).toBeUndefined();
      expect(res.status).toBe(200);
    }
  });

  it('serves the page compressed, revalidated with a strong ETag (304), never from a shared cache', async () => {
    const get = (headers: Record<string, string>) =>
      fetch(`${t.url}/graphql`, { headers: { accept: 'text/html', ...headers } });
    const page = await get({ 'accept-encoding': 'br' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    expect(page.headers.get('vary')).toMatch(/\bAccept\b.*\bAccept-Encoding\b/);
    const etag = page.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(await page.text()).toContain(adminKey);

    const again = await get({ 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
  });
});

describe('GraphiQL without the demo data', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp({ SEED_DEMO: 'false' });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('prefills a placeholder saying where a key goes, and no demo key', async () => {
    const res = await fetch(`${bare.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(API_KEY_PLACEHOLDER);
    for (const persona of demoPersonas) expect(html).not.toContain(persona.apiKey);
  });
});
