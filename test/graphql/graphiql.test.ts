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

const adminKey = keyOf('account admin');
const tabNames = [
  'RecentMeetings',
  'MeetingPage',
  'MeetingChanges',
  'SearchMeetings',
  'CreateWebhook',
  'RegisterApp',
  'Download',
  'ContentReady',
];

/** What a Monaco editor shows, without line numbers; Monaco renders spaces as U+00A0. */
async function textOf(editor: Locator): Promise<string> {
  return ((await editor.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
}

/**
 * What of a Monaco editor's lines lies beyond its right edge, as a reader would have to scroll
 * sideways to see it: how far the longest line in view runs past the visible width (the vertical
 * scrollbar covers the last pixels), and whether the editor scrolls sideways at all (its lines
 * are laid out wider than the view, or its horizontal scrollbar's slider is shorter than the
 * track: Monaco scrolls a few columns past the longest line).
 */
async function sidewaysOf(editor: Locator): Promise<{ pastTheEdge: number; scrolls: boolean }> {
  return editor.evaluate((el) => {
    const box = (selector: string) => el.querySelector(selector)?.getBoundingClientRect();
    const viewport = box('.editor-scrollable')!;
    const vertical = box('.scrollbar.vertical');
    const edge = vertical && vertical.width > 0 ? Math.min(viewport.right, vertical.left) : viewport.right;
    const ends = [...el.querySelectorAll('.view-line > span')].map((s) => s.getBoundingClientRect().right);
    const track = box('.scrollbar.horizontal');
    const slider = box('.scrollbar.horizontal .slider');
    const content = (el.querySelector('.view-lines') as HTMLElement).offsetWidth;
    return {
      pastTheEdge: Math.max(0, ...ends.map((end) => Math.ceil(end - edge))),
      scrolls:
        content > viewport.width ||
        (!!track && !!slider && track.width > 0 && slider.width > 0 && slider.width < track.width),
    };
  });
}

interface ShownMeeting {
  recordingId: number;
  defaultSummary: { markdownFormatted: string } | null;
  transcript: { text: string }[] | null;
}
const hasContent = (m: ShownMeeting) =>
  !!m.defaultSummary?.markdownFormatted && (m.transcript?.length ?? 0) > 0;

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
    const meetings: ShownMeeting[] = answer.data.meetings.edges.map((e: { node: ShownMeeting }) => e.node);
    expect(meetings.length).toBeGreaterThan(0);
    expect(meetings.filter(hasContent), 'the demo admin’s newest meetings all have content').toEqual(
      meetings,
    );

    // And the result pane shows it: the admin, a Markdown summary and, scrolling down, transcript
    // lines (Monaco renders only the lines in view, and a long summary can push them below it).
    await expect.poll(() => textOf(result), { timeout: 10_000 }).toContain('alice.moreau@acme.test');
    const shown = await textOf(result);
    expect(shown).not.toContain('"errors"');
    expect(shown).toMatch(/"markdownFormatted": "#/);
    await result.hover();
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, 300);
        return textOf(result);
      })
      .toMatch(/"text": "\S/);

    expect(foreign, 'GraphiQL must not load anything from outside the server').toEqual([]);
    expect([...pageErrors, ...consoleErrors]).toEqual([]);
  });

  // Every tab in turn in a real browser: up to a minute on a machine running two suites at once.
  it('fits a 1280×720 screen: no example scrolls sideways, and the first tab shows content at once', async () => {
    const { page, foreign, pageErrors, consoleErrors } = await browser.open(t.url, {
      width: 1280,
      height: 720,
    });
    await page.goto(`${t.url}/graphql`);
    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
    await queryEditor.waitFor({ timeout: 20_000 });

    // A tab is chosen by its button's click event: the tabs are draggable (to reorder them), and
    // the drag handling swallows the click of the headless browser's synthetic mouse.
    const choose = (name: string) =>
      page.locator('.graphiql-tab-button', { hasText: name }).dispatchEvent('click');
    await expect.poll(() => page.locator('.graphiql-tabs [role="tab"]').count()).toBe(tabNames.length);
    const lineNumbers = () =>
      queryEditor
        .locator('.line-numbers')
        .evaluateAll((all) => all.map((n) => Number(n.textContent)).filter((n) => n > 0));
    const examples = graphiqlOptions({ apiKey: adminKey }).defaultTabs ?? [];
    for (const [i, name] of tabNames.entries()) {
      await choose(name);
      const lines = (examples[i]?.query ?? '').split('\n');
      // Its first lines, then its last (Monaco renders only the lines in view).
      await queryEditor.locator('.view-lines').click();
      await page.keyboard.press('Control+Home');
      await expect.poll(() => textOf(queryEditor)).toContain(lines[0]);
      await expect.poll(async () => Math.min(...(await lineNumbers()))).toBe(1);
      const top = await sidewaysOf(queryEditor);
      await page.keyboard.press('Control+End');
      await expect.poll(async () => Math.max(...(await lineNumbers()))).toBe(lines.length);
      const end = await sidewaysOf(queryEditor);
      expect({ name, top, end }, 'every line fits the editor').toEqual({
        name,
        top: { pastTheEdge: 0, scrolls: false },
        end: { pastTheEdge: 0, scrolls: false },
      });
    }

    expect(foreign).toEqual([]);
    expect([...pageErrors, ...consoleErrors]).toEqual([]);

    // The first tab, run as it opens on a first visit: what is in view without scrolling is real
    // content. A fresh page, not the tab chosen again above: right after a switch, GraphiQL may
    // still run the tab it left (an Execute that sends the previous tab's operation).
    const fresh = await browser.open(t.url, { width: 1280, height: 720 });
    await fresh.page.goto(`${t.url}/graphql`);
    const firstEditor = fresh.page.locator('.graphiql-query-editor .monaco-editor');
    await firstEditor.waitFor({ timeout: 20_000 });
    await expect.poll(() => textOf(firstEditor)).toContain('query RecentMeetings');
    const executed = fresh.page.waitForResponse(
      (res) =>
        res.url() === `${t.url}/graphql` && (res.request().postData() ?? '').includes('RecentMeetings'),
    );
    await fresh.page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    const answer = await (await executed).json();
    expect(answer.errors).toBeUndefined();
    const first: ShownMeeting = answer.data.meetings.edges[0].node;
    expect(hasContent(first), `the first meeting shown (${first.recordingId}) has content`).toBe(true);

    const result = fresh.page.locator('.graphiql-response');
    await expect
      .poll(() => textOf(result), { timeout: 10_000 })
      .toContain(`"recordingId": ${first.recordingId}`);
    // In view without scrolling: the first meeting's Markdown summary (its transcript follows).
    const inView = await textOf(result);
    expect(inView).not.toMatch(/"(defaultSummary|transcript)": null/);
    expect(inView).toMatch(/"markdownFormatted": "#/);

    expect(fresh.foreign).toEqual([]);
    expect([...fresh.pageErrors, ...fresh.consoleErrors]).toEqual([]);
  }, 90_000);

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
