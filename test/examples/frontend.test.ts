/**
 * The reference frontend (examples/frontend) in headless Chromium, against the service on its own
 * origin: a person signs in through the OAuth pages (the page is a public client with PKCE), sees
 * the meetings list with summaries that arrive after it (@defer), pages a transcript, searches,
 * and sees a new meeting appear live. What the page shows is compared with what the API answers
 * the same person's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Frontend, serveFrontend } from '../../examples/frontend/serve.js';
import { emailOf, ingest, recordingJson, SERVICE_TOKEN_SHA256 } from '../delivery/support.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testBrowser, type WatchedPage } from '../support/browser.js';

let t: TestApp;
let frontend: Frontend;
let watched: WatchedPage;
const browser = testBrowser();
const person = 'account admin';
/** The content types of /graphql's answers to the page. */
const answeredAs: string[] = [];

beforeAll(async () => {
  // The page first (its origin is what the service must allow), then the service.
  frontend = await serveFrontend({ service: () => t.url, host: '127.0.0.1' });
  t = await startTestApp({
    CORS_ORIGINS: frontend.origin,
    INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256,
    SUBSCRIPTION_POLL_MS: '100',
  });
  watched = await browser.open(frontend.origin);
  watched.page.on('response', (res) => {
    if (res.url() === `${t.url}/graphql`) answeredAs.push(res.headers()['content-type'] ?? '');
  });
});
afterAll(async () => {
  await browser.close();
  await t?.close();
  await frontend?.close();
});

/** What the API answers the same person, with their key. */
async function asTheirKey(query: string, variables: Record<string, unknown> = {}) {
  const res = await t.graphql(query, variables, keyOf(person));
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** Polls for what the page shows (a page on a busy machine takes its time). */
const until = <T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) =>
  expect.poll(read, { timeout: 15_000, ...options });

const shownTitles = () => watched.page.locator('#meetings li .title').allTextContents();

describe('the reference frontend', () => {
  it('signs a person in through the OAuth pages as a public client with PKCE', async () => {
    const { page } = watched;
    await page.goto(frontend.origin);
    await until(() => page.locator('#status').textContent()).toBe('Sign in to see your meetings.');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${t.url}/`));
    await page.getByRole('button', { name: emailOf(person) }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(frontend.origin));
    await until(() => page.locator('#who').textContent()).toContain(emailOf(person));
    // The code and state are gone from the address bar; the token is the page's, not in the URL.
    expect(new URL(page.url()).search).toBe('');
  });

  it('lists the meetings at once and fills their action items in as they arrive (@defer)', async () => {
    const { page } = watched;
    const expected = await asTheirKey(
      '{ meetings(first: 10) { edges { node { title actionItems { description } } } } }',
    );
    const nodes = expected.meetings.edges.map((e: any) => e.node);
    await until(shownTitles).toEqual(nodes.map((n: any) => n.title));
    await until(() => page.locator('#meetings li .actions').allTextContents()).toEqual(
      nodes.map(({ actionItems: [first, ...rest] }: { actionItems: { description: string }[] }) =>
        first
          ? `Next: ${first.description}${rest.length ? ` (and ${rest.length} more)` : ''}`
          : 'No action items.',
      ),
    );
  });

  it('shows a meeting’s summary (deferred) and its transcript ten lines at a time', async () => {
    const { page } = watched;
    const lines = await asTheirKey(
      '{ meetings(first: 10) { edges { node { recordingId defaultSummary { markdownFormatted } transcript { timestamp text speaker { displayName } } } } } }',
    );
    const index = lines.meetings.edges.findIndex((e: any) => (e.node.transcript?.length ?? 0) > 10);
    expect(index).toBeGreaterThanOrEqual(0);
    const transcript = lines.meetings.edges[index].node.transcript;
    const shown = (n: number) =>
      transcript.slice(0, n).map((l: any) => `${l.timestamp} ${l.speaker.displayName}: ${l.text}`);
    await page.locator('#meetings li .title').nth(index).click();
    await until(() => page.locator('#transcript ol li').allTextContents()).toEqual(shown(10));
    await until(() => page.locator('#summary').textContent()).toBe(
      lines.meetings.edges[index].node.defaultSummary?.markdownFormatted ?? 'No summary.',
    );
    await page.getByRole('button', { name: 'More' }).click();
    await expect
      .poll(() => page.locator('#transcript ol li').allTextContents())
      .toEqual(shown(Math.min(20, transcript.length)));
  });

  it('searches what was said', async () => {
    const { page } = watched;
    const found = await asTheirKey(
      '{ meetings(first: 10, filter: { search: "export" }) { edges { node { title } } } }',
    );
    const titles = found.meetings.edges.map((e: any) => e.node.title);
    expect(titles.length).toBeGreaterThan(0);
    await page.getByRole('searchbox', { name: 'Search what was said' }).fill('export');
    await page.getByRole('button', { name: 'Search' }).click();
    await until(shownTitles).toEqual(titles);
  });

  it('shows a new meeting as soon as its content is ready (the subscription)', async () => {
    const { page } = watched;
    await until(() => page.locator('#live').textContent()).toBe('Live: on');
    const recording = recordingJson(emailOf(person), { title: 'Fresh from the recorder' });
    await ingest(t, recording);
    await expect
      .poll(() => page.locator('#meetings li.new .title').allTextContents(), { timeout: 10_000 })
      .toContain('Fresh from the recorder');
  });

  it('met no error, and called nothing but the service', () => {
    expect(watched.pageErrors).toEqual([]);
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.foreign.filter((url) => !url.startsWith(`${t.url}/`))).toEqual([]);
  });
});
