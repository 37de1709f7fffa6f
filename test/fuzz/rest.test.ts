/**
 * Fuzzing the REST door (/external/v1, every route of the route table): random and malformed query
 * strings, path segments, methods, JSON bodies, headers and cursors. Whatever comes in, the answer
 * is never a 5xx, an error is always `{"error": "..."}` as JSON, and afterwards the service is still
 * healthy. FUZZ_SEED=<seed> replays a failing run (fast-check prints the seed and the path).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-compat/index.js';
import { restErrorStatuses } from '../../src/http/error-catalog.js';
import { keyOf, type TestApp } from '../support/app.js';
import {
  checkHealthy,
  checkRestAnswer,
  cursorArbitrary,
  fuzzParameters,
  headerSafe,
  inTarget,
  localishUrl,
  nastyString,
  percentEncode,
  send,
  sendRaw,
  startFuzzApp,
  staysLocal,
} from './support.js';

const PREFIX = '/external/v1';
const cataloguedStatuses = restErrorStatuses.map((e) => e.status);
let app: TestApp;
let counted = 0;
const admin = keyOf('account admin');

/** Credentials: good ones of several personas, refused ones, malformed ones. */
const credential: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': admin }) },
  fc.constantFrom<Record<string, string>>(
    { 'x-api-key': keyOf('team admin (Sales)') },
    { 'x-api-key': keyOf('member: own meetings + CRM') },
    { 'x-api-key': keyOf('external user (Globex)') },
    { authorization: `Bearer ${keyOf('connected app (Tom)').replace(/^Bearer /, '')}` },
    { 'x-api-key': keyOf('deactivated user (401)') },
    { 'x-api-key': keyOf('revoked key (401)') },
    {},
  ),
  nastyString.filter(headerSafe).map((k) => ({ 'x-api-key': k })),
  nastyString.filter(headerSafe).map((k) => ({ authorization: `Bearer ${k}` })),
  nastyString.filter(headerSafe).map((k) => ({ authorization: k })),
);

const methods = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'] as const;

/** A value for a path parameter: plausible ids and anything else. */
const pathValue = fc.oneof(
  fc.constantFrom('100001', '100200', '100195', '1', '0', '-1', '2147483648', '1e3', '0x10', 'abc', '%20'),
  fc.integer({ min: -10, max: 300_000 }).map(String),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 }),
  nastyString.filter((s) => s.length > 0).chain(inTarget),
);

/** A route's path with its parameters filled in. */
const routePath = fc
  .tuple(fc.constantFrom(...routes), fc.array(pathValue, { minLength: 2, maxLength: 2 }))
  .map(([route, values]) => {
    let i = 0;
    return { route, path: route.path.replace(/\{\w+\}/g, () => values[i++]!) };
  });

/** Query pairs: the route's own parameter names (in their [] and %5B%5D forms too) and others. */
function queryFor(names: string[]) {
  const name = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('limit', ...names, ...names.map((n) => n.replace('[]', '%5B%5D'))),
    },
    fc.constantFrom('limit', 'cursor', 'include_transcript', 'destination_url', 'x[]', '__proto__', ''),
    nastyString.chain(inTarget),
  );
  const value = fc.oneof(
    fc.constantFrom('true', 'false', '10', '1', '100', '101', '0', 'all', 'only_internal', 'acme.test'),
    fc
      .constantFrom(
        'alice.moreau@acme.test',
        'Sales',
        '2026-06-01T00:00:00+02:00',
        'Discovery Call',
        'active',
      )
      .chain(inTarget),
    localishUrl.chain(inTarget),
    nastyString.filter(staysLocal).chain(inTarget),
  );
  return fc
    .array(fc.tuple(name, value, fc.boolean()), { maxLength: 8 })
    .map((pairs) => pairs.map(([n, v, bare]) => (bare && v === '' ? n : `${n}=${v}`)).join('&'));
}

async function check(
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body?: string,
): Promise<number> {
  const res = await send(app.url, { method, path, headers: headers as Record<string, string>, body });
  counted++;
  const what = `${method} ${path} ${JSON.stringify(headers).slice(0, 200)} ${body?.slice(0, 200) ?? ''}`;
  checkRestAnswer(res, method, what);
  // Every error status a client can meet is explained in the catalog (docs/api/errors.md).
  if (res.status >= 400) expect(cataloguedStatuses, what).toContain(res.status);
  return res.status;
}

/** Real cursors of each list, to mutate and to send where they do not belong. */
const realCursors: string[] = [];

beforeAll(async () => {
  app = await startFuzzApp();
  for (const list of ['/meetings', '/teams', '/team_members', '/meeting_types', '/users']) {
    const res = await fetch(`${app.url}${PREFIX}${list}?limit=1`, { headers: { 'x-api-key': admin } });
    const cursor = ((await res.json()) as { next_cursor?: string | null }).next_cursor;
    if (cursor) realCursors.push(cursor);
  }
  const filtered = await fetch(`${app.url}${PREFIX}/meetings?limit=1&teams[]=Sales`, {
    headers: { 'x-api-key': admin },
  });
  const cursor = ((await filtered.json()) as { next_cursor?: string | null }).next_cursor;
  if (cursor) realCursors.push(cursor);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe('fuzzing /external/v1', () => {
  it('random query strings on every route: never a 5xx, errors as {"error"}', async () => {
    await fc.assert(
      fc.asyncProperty(
        routePath.chain(({ route, path }) =>
          fc.tuple(
            fc.constant(route.method),
            fc.constant(path),
            queryFor(route.querySpecs.map((s) => s.name)),
            credential,
          ),
        ),
        async ([method, path, query, headers]) => {
          await check(method, `${PREFIX}${path}${query ? `?${query}` : ''}`, headers);
        },
      ),
      fuzzParameters(250),
    );
  });

  it('random path segments and methods: never a 5xx, errors as {"error"}', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'meetings',
        'recordings',
        'transcript',
        'summary',
        'webhooks',
        'teams',
        'users',
        '',
        '.',
        '..',
      ),
      fc.constantFrom(
        'openapi.json',
        'team_members',
        'meeting_types',
        '100001',
        '%2e%2e',
        '%2F',
        '%00',
        ';x',
      ),
      pathValue,
    );
    // Methods node's HTTP parser accepts (it refuses others before any handler runs: see the raw test).
    const method = fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...methods) },
      fc.constantFrom('TRACE', 'PROPFIND', 'M-SEARCH', 'PURGE', 'LINK'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 0, maxLength: 6 }),
        method,
        fc.constantFrom('', '/', '?', '?&', '#x', '?limit=1'),
        credential,
        async (segments, m, tail, headers) => {
          await check(m, `${PREFIX}/${segments.join('/')}${tail}`, headers);
        },
      ),
      fuzzParameters(200),
    );
  });

  it('random methods on every route path: 405 (or 404) as {"error"}, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(routePath, fc.constantFrom(...methods), async ({ path }, method) => {
        await check(method, `${PREFIX}${path}`, { 'x-api-key': admin });
      }),
      fuzzParameters(60),
    );
  });

  it('random JSON bodies and content types on POST /webhooks (and bodies where none belongs)', async () => {
    const webhookValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(
        true,
        false,
        ['my_recordings'],
        ['shared_with_me_external_recordings', 'my_recordings'],
      ),
      fc.constantFrom(['shared_team_recordings', 'nope'], [], [null], 'my_recordings'),
      localishUrl,
    );
    const keys = fc.constantFrom(
      'destination_url',
      'triggered_for',
      'include_transcript',
      'include_summary',
      'include_action_items',
      'include_crm_matches',
      'url',
      '__proto__',
      'constructor',
    );
    const body = fc.oneof(
      // objects built from the real keys with random values
      fc.dictionary(keys, webhookValue, { maxKeys: 7 }).map((o) => JSON.stringify(o)),
      // any JSON at all
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      // not JSON
      nastyString,
      fc.constantFrom(
        '{',
        '{"destination_url":',
        '[]',
        'null',
        '{"a":1}{"b":2}',
        '\uFEFF{}',
        '{"__proto__":{"x":1}}',
      ),
      fc.constant(
        `{"destination_url":"http://127.0.0.1/","triggered_for":["my_recordings"],"x":"${'y'.repeat(70_000)}"}`,
      ),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'APPLICATION/JSON',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        body.filter(staysLocal),
        contentType,
        fc.constantFrom(
          'POST /webhooks',
          'POST /webhooks',
          'POST /webhooks',
          'DELETE /webhooks/x',
          'GET /meetings',
        ),
        credential,
        async (text, type, target, headers) => {
          const [method, path] = target.split(' ') as [string, string];
          const all = type ? { ...headers, 'content-type': type } : headers;
          await check(method, `${PREFIX}${path}`, all, text);
        },
      ),
      fuzzParameters(250),
    );
  });

  it('random headers: credentials, duplicates, accept, request ids, lengths', async () => {
    const value = nastyString.filter(headerSafe);
    const headers = fc.record(
      {
        'x-api-key': fc.oneof(
          value,
          fc.constant(admin),
          fc.tuple(fc.constant(admin), value).map((v) => v as never),
        ),
        authorization: fc.oneof(
          value,
          value.map((v) => `Bearer ${v}`),
          fc.constant('Bearer'),
        ),
        accept: fc.oneof(value, fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml')),
        'x-request-id': value,
        'content-type': value,
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*'),
        'x-forwarded-for': value,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        headers,
        fc.constantFrom('/meetings', '/teams', '/users', '/recordings/100001/summary', '/meeting_types'),
        async (h, path) => {
          await check('GET', `${PREFIX}${path}`, h as Record<string, string>);
        },
      ),
      fuzzParameters(200),
    );
  });

  it('random and forged cursors on every list: 400 or a page, never a 5xx', async () => {
    const cursor = cursorArbitrary(realCursors);
    await fc.assert(
      fc.asyncProperty(
        cursor,
        fc.constantFrom(
          '/meetings',
          '/meetings?teams[]=Sales',
          '/teams',
          '/team_members',
          '/meeting_types',
          '/users',
        ),
        async (c, list) => {
          const path = `${PREFIX}${list}${list.includes('?') ? '&' : '?'}cursor=${percentEncode(c)}`;
          const status = await check('GET', path, { 'x-api-key': admin });
          expect([200, 400], `${path} → ${status}`).toContain(status);
        },
      ),
      fuzzParameters(250),
    );
  });

  it('raw bytes on the socket: no 5xx, the server keeps serving', async () => {
    const line = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'G\0T', ''),
          nastyString,
          fc.constantFrom('HTTP/1.1', 'HTTP/9.9', ''),
        )
        .map(([m, target, v]) =>
          Buffer.from(`${m} ${PREFIX}/${target} ${v}\r\nHost: x\r\nX-Api-Key: ${admin}\r\n\r\n`, 'utf8'),
        ),
      nastyString.map((h) =>
        Buffer.from(
          `GET ${PREFIX}/meetings HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${h}\r\nContent-Length: -1\r\n\r\n`,
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(line, async (bytes) => {
        const { status, text } = await sendRaw(app.url, bytes);
        counted++;
        if (status >= 500) throw new Error(`raw request → ${text.slice(0, 300)}`);
      }),
      fuzzParameters(60),
    );
  });

  it('is still healthy afterwards', async () => {
    await checkHealthy(app, admin);
    // One line for the record: how many requests this file sent.
    process.stdout.write(`REST fuzzing: ${counted} requests\n`);
    expect(counted).toBeGreaterThan(1000);
  });
});
