/**
 * Conditional GraphQL GETs: an answer carries a strong ETag of its bytes and `Cache-Control:
 * private`; asked again with `If-None-Match`, an unchanged answer is a 304 without a body, while
 * the request is still authenticated and counted against the rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';

const admin = keyOf('account admin');
const query = '{ viewer { email } teams(first: 5) { edges { node { name } } } }';

let t: TestApp;
// Eight requests a minute per key: each test uses a key of its own.
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERAL: '8' });
});
afterAll(() => t.close());

const get = (headers: Record<string, string>, q = query) =>
  fetch(`${t.url}/graphql?${new URLSearchParams({ query: q })}`, {
    headers: { accept: 'application/graphql-response+json', ...headers },
  });

describe('conditional GraphQL GETs', () => {
  it('tags an answer, answers 304 to its tag (weak or in a list), 200 to another or to garbage', async () => {
    const first = await get(authHeaders(admin));
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const body = await first.text();

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await get({ ...authHeaders(admin), 'if-none-match': ifNoneMatch });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
    }
    for (const ifNoneMatch of ['"other"', 'garbage, ,,', 'W/']) {
      const fresh = await get({ ...authHeaders(admin), 'if-none-match': ifNoneMatch });
      expect(fresh.status, ifNoneMatch).toBe(200);
      expect(await fresh.text()).toBe(body);
    }
    // Compressed, the same bytes underneath: the same tag.
    const compressed = await get({ ...authHeaders(admin), 'accept-encoding': 'br' });
    expect(compressed.headers.get('etag')).toBe(etag);
  });

  it('another viewer’s answer differs, and so does its tag; a request without a key is 401, not 304', async () => {
    const mine = await get(authHeaders(keyOf('team admin (Sales)')));
    const etag = mine.headers.get('etag')!;
    const theirs = await get({ ...authHeaders(keyOf('external user (Globex)')), 'if-none-match': etag });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('etag')).not.toBe(etag);
    const anonymous = await get({ 'if-none-match': etag });
    expect(anonymous.status).toBe(401);
  });

  it('a 304 counts against the rate limit like any answer', async () => {
    const key = keyOf('member: team view');
    const etag = (await get(authHeaders(key))).headers.get('etag')!;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await get({ ...authHeaders(key), 'if-none-match': etag })).status);
    expect(statuses.slice(0, 7)).toEqual(Array(7).fill(304));
    expect(statuses[7]).toBe(429);
  });

  it('POSTs are not tagged', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { ...authHeaders(keyOf('member: all teams view')), 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
  });
});
