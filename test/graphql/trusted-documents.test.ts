/**
 * Trusted documents: a frontend's operations sent by id (Apollo's persisted-query extension) from
 * a manifest the server starts with; with GRAPHQL_TRUSTED_ONLY nothing else runs on /graphql,
 * while the REST and MCP doors, whose documents are the service's own, keep working. A manifest
 * that lies about a hash or holds an invalid document stops the start.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';
import { postMcp, toolCall } from '../support/mcp.js';

const key = keyOf('account admin');
const recent = 'query Recent { meetings(first: 3) { edges { node { recordingId title } } } }';
const me = 'query Me { viewer { email } }';
const idOf = (text: string) => createHash('sha256').update(text).digest('hex');

let dir: string;
let manifest: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trusted-'));
  manifest = join(dir, 'persisted-documents.json');
  writeFileSync(manifest, JSON.stringify({ [idOf(recent)]: recent, [idOf(me)]: me }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function post(t: TestApp, body: Record<string, unknown>) {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: {
      ...authHeaders(key),
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
}

const byId = (text: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: idOf(text) } } });

describe('with a manifest (development: text still runs)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ GRAPHQL_TRUSTED_DOCUMENTS: manifest });
  });
  afterAll(() => t.close());

  it('runs an operation sent by id as its text runs, by POST and by GET', async () => {
    const asText = await post(t, { query: recent });
    const asId = await post(t, byId(recent));
    expect(asId.status).toBe(200);
    expect(asId.body).toEqual(asText.body);
    expect(asId.body.data.meetings.edges.length).toBe(3);
    const params = new URLSearchParams({ extensions: JSON.stringify(byId(me).extensions) });
    const got = await fetch(`${t.url}/graphql?${params}`, {
      headers: { ...authHeaders(key), accept: 'application/json' },
    });
    expect(await got.json()).toEqual({ data: { viewer: { email: 'alice.moreau@acme.test' } } });
  });

  it('an unknown id names the setting; text with a hash that is not its own is refused', async () => {
    const unknown = await post(t, {
      extensions: { persistedQuery: { version: 1, sha256Hash: idOf('{ x }') } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('GRAPHQL_TRUSTED_DOCUMENTS'),
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });
    const mismatch = await post(t, { query: me, ...byId(recent) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    expect((await post(t, { query: me, ...byId(me) })).body).toEqual({
      data: { viewer: { email: 'alice.moreau@acme.test' } },
    });
    const nothing = await post(t, {});
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
  });
});

describe('GRAPHQL_TRUSTED_ONLY (production)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ GRAPHQL_TRUSTED_DOCUMENTS: manifest, GRAPHQL_TRUSTED_ONLY: 'true' });
  });
  afterAll(() => t.close());

  it('runs the manifest’s operations by id and refuses any text, naming the setting', async () => {
    expect((await post(t, byId(me))).body).toEqual({ data: { viewer: { email: 'alice.moreau@acme.test' } } });
    const text = await post(t, { query: me });
    expect(text.status).toBe(400);
    expect(text.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('GRAPHQL_TRUSTED_ONLY'),
      extensions: { code: 'PERSISTED_QUERY_ONLY' },
    });
    // Text together with its own id is still text.
    expect((await post(t, { query: me, ...byId(me) })).status).toBe(400);
  });

  it('leaves the REST and MCP doors working: their documents are the service’s own', async () => {
    const rest = await fetch(`${t.url}/external/v1/meetings?limit=2`, { headers: authHeaders(key) });
    expect(rest.status).toBe(200);
    const mcp = await postMcp(t.url, key, toolCall('list_teams'));
    expect(await mcp.text()).toContain('"structuredContent"');
  });
});

describe('a manifest that cannot be trusted', () => {
  it.each([
    ['an id that is not its document’s SHA-256', { [idOf(me)]: recent }, /not the SHA-256 of its document/],
    ['a document that does not validate', { [idOf('{ nope }')]: '{ nope }' }, /Cannot query field "nope"/],
    ['a document that does not parse', { [idOf('query {')]: 'query {' }, /Syntax Error/],
  ])('stops the start: %s', async (_what, content, problem) => {
    const path = join(dir, `bad-${idOf(JSON.stringify(content)).slice(0, 8)}.json`);
    writeFileSync(path, JSON.stringify(content));
    await expect(startTestApp({ GRAPHQL_TRUSTED_DOCUMENTS: path })).rejects.toThrow(problem);
  });

  it('GRAPHQL_TRUSTED_ONLY without a manifest is a configuration error', async () => {
    await expect(startTestApp({ GRAPHQL_TRUSTED_ONLY: 'true' })).rejects.toThrow(
      /GRAPHQL_TRUSTED_ONLY needs GRAPHQL_TRUSTED_DOCUMENTS/,
    );
  });
});
