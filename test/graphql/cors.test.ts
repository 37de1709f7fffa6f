/** CORS on /graphql: only the origins in CORS_ORIGINS, and none at all by default. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const allowed = 'https://app.example';
const stranger = 'https://evil.example';

let single: TestApp;
let several: TestApp;
let closed: TestApp;
beforeAll(async () => {
  [single, several, closed] = await Promise.all([
    startTestApp({ CORS_ORIGINS: allowed }),
    startTestApp({ CORS_ORIGINS: `${allowed},https://admin.example` }),
    startTestApp(),
  ]);
});
afterAll(() => Promise.all([single, several, closed].map((t) => t?.close())));

function preflight(t: TestApp, origin: string): Promise<Response> {
  return fetch(`${t.url}/graphql`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-api-key',
    },
  });
}

function post(t: TestApp, origin: string): Promise<Response> {
  return fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', 'x-api-key': keyOf('account admin') },
    body: JSON.stringify({ query: '{ viewer { email } }' }),
  });
}

function listOf(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

function corsHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

describe('CORS with CORS_ORIGINS=https://app.example', () => {
  it('answers the preflight of an allowed origin with its origin, POST and x-api-key', async () => {
    const res = await preflight(single, allowed);
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(listOf(res.headers.get('access-control-allow-methods'))).toContain('post');
    expect(listOf(res.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['content-type', 'x-api-key']),
    );
    await res.body?.cancel();
  });

  it('lets the allowed origin read the answer to its POST', async () => {
    const res = await post(single, allowed);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(listOf(res.headers.get('access-control-expose-headers'))).toContain('x-request-id');
    const body = (await res.json()) as { data?: { viewer?: { email?: string } } };
    expect(body.data?.viewer?.email).toBe('alice.moreau@acme.test');
  });

  it('never allows an origin that is not in the list', async () => {
    const pre = await preflight(single, stranger);
    expect(pre.headers.get('access-control-allow-origin')).not.toBe(stranger);
    expect(pre.headers.get('access-control-allow-origin')).not.toBe('*');
    await pre.body?.cancel();
    const res = await post(single, stranger);
    expect(res.headers.get('access-control-allow-origin')).not.toBe(stranger);
    expect(res.headers.get('access-control-allow-origin')).not.toBe('*');
    await res.body?.cancel();
  });
});

describe('CORS with several origins', () => {
  it('echoes a listed origin (varying on Origin) and answers "null" to any other', async () => {
    for (const origin of [allowed, 'https://admin.example']) {
      const res = await preflight(several, origin);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(listOf(res.headers.get('vary'))).toContain('origin');
      await res.body?.cancel();
    }
    const res = await post(several, stranger);
    expect(res.headers.get('access-control-allow-origin')).toBe('null');
    await res.body?.cancel();
  });
});

describe('CORS by default (no CORS_ORIGINS)', () => {
  it('sends no CORS headers, to a preflight or to a POST', async () => {
    const pre = await preflight(closed, allowed);
    expect(corsHeaders(pre)).toEqual([]);
    await pre.body?.cancel();
    const res = await post(closed, allowed);
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
    await res.body?.cancel();
  });
});
