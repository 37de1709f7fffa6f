/**
 * Every demo user's OAuth token against their API key: the token acts as its user, so every read
 * path answers it exactly what it answers the user's key (status and body), except that a connected
 * app may not include content in a meeting list (compat.md), which answers 400 on both doors.
 *
 * The access oracle (every-path.test.ts) checks three of these tokens against its own model on
 * every path; this file covers all seven users on the read paths, cheaply enough to run every time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { authHeaders, startTestApp, type TestApp } from '../support/app.js';
import { authorize, exchange, registerApp } from '../support/oauth.js';

const users = demoPersonas.filter((p) => p.kind === 'api_key' && !p.label.includes('(401)'));

let t: TestApp;
const tokens = new Map<string, string>();
/** Recordings of every organisation, seen or not by each user: what they may read, and 404s. */
let recordingIds: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const app = await registerApp(t);
  for (const user of users) {
    const { redirect } = await authorize(t, { clientId: app.clientId, email: user.email });
    const { body } = await exchange(t, app, redirect.searchParams.get('code')!);
    tokens.set(user.label, `Bearer ${body.access_token}`);
  }
  const all = await t.app.database.collections.meetings
    .find({}, { projection: { recordingId: 1 }, sort: { recordingId: 1 } })
    .toArray();
  // Every 10th recording: each organisation and each kind of sharing, without 200 × 7 × 4 calls.
  recordingIds = all.filter((_, i) => i % 10 === 0).map((m) => m.recordingId);
}, 60_000);
afterAll(() => t.close());

async function rest(credential: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${t.url}/external/v1${path}`, { headers: authHeaders(credential) });
  return { status: res.status, body: await res.json() };
}

/** Every page of a cursor-paged REST list. */
async function everyPage(credential: string, path: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await rest(credential, cursor ? `${path}${sep}cursor=${cursor}` : path);
    pages.push(page);
    cursor = page.status === 200 ? (page.body as { next_cursor: string | null }).next_cursor : null;
  } while (cursor);
  return pages;
}

const lists = ['/meetings?limit=50', '/meeting_types', '/teams', '/team_members', '/users'];
const contentKinds = ['transcript', 'summary'];

const everything = `{
  viewer { email permissions { settingsAccess { level } viewAccess { level teams { name } } } }
  meetings(first: 100) { edges { node { recordingId title recordedBy { email } } } }
  teams(first: 100) { edges { node { name } } }
  teamMembers(first: 100) { edges { node { email } } }
}`;

describe.each(users)('$label: a token answers what the key answers', (user) => {
  it('on every REST list, page after page', async () => {
    const token = tokens.get(user.label)!;
    for (const path of lists)
      expect(await everyPage(token, path), path).toEqual(await everyPage(user.apiKey, path));
  });

  it('on recordings’ content, seen or not (the same 200s and 404s)', async () => {
    const token = tokens.get(user.label)!;
    const statuses = new Set<number>();
    for (const id of recordingIds)
      for (const kind of contentKinds) {
        const path = `/recordings/${id}/${kind}`;
        const byKey = await rest(user.apiKey, path);
        expect(await rest(token, path), path).toEqual(byKey);
        statuses.add(byKey.status);
      }
    // Every user here sees some recordings and not others: both answers were compared.
    expect([...statuses].sort()).toEqual([200, 404]);
  });

  it('on GraphQL, and a meeting list with content is 400 on both doors', async () => {
    const token = tokens.get(user.label)!;
    const byToken = await t.graphql(everything, {}, token);
    expect(byToken.body.errors).toBeUndefined();
    expect(byToken.body).toEqual((await t.graphql(everything, {}, user.apiKey)).body);

    const listed = await rest(token, '/meetings?include_transcript=true');
    expect(listed).toEqual({
      status: 400,
      body: { error: 'OAuth users are not allowed to include transcript.' },
    });
    const withContent = await t.graphql(
      '{ meetings(first: 1) { edges { node { summary: defaultSummary { markdownFormatted } } } } }',
      {},
      token,
    );
    expect(withContent.body.errors?.[0]?.extensions?.http?.status).toBe(400);
  });
});
