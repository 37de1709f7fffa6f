/**
 * The error catalog (src/http/error-catalog.ts) is what a developer reads to understand an error,
 * so it must be true: every GraphQL code and REST status it lists is provoked here through the
 * real service and answers with the status it lists; any answer with a code or status the
 * catalog does not list fails; and the tables of docs/api/errors.md list exactly the catalog.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { MongoNetworkError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimLog } from '../../src/domain/change-log.js';
import { graphqlErrorCodes, restErrorStatuses } from '../../src/http/error-catalog.js';
import { send } from '../fuzz/support.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const admin = keyOf('account admin');
const member = keyOf('member: team view');

beforeAll(async () => {
  // One heavy (transcript, summary) request per key and window, and a budget of 1 MB of content
  // at once, so that the rate limit and load shedding are reached with a couple of requests.
  t = await startTestApp({ RATE_LIMIT_HEAVY: '1', ADMISSION_BUDGET_MB: '1' });
});
afterAll(() => t?.close());

interface GraphQLAnswer {
  status: number;
  headers: Record<string, unknown>;
  errors: { message: string; extensions?: { code?: string; http?: { status?: number } } }[];
}

const pair = (code: unknown, status: unknown) => `${String(code)} ${String(status)}`;
const catalogued = new Set(graphqlErrorCodes.map((e) => pair(e.code, e.status)));
const cataloguedStatuses = new Set(restErrorStatuses.map((e) => e.status));

/** A request to /graphql; every error it answers must be catalogued with the status it carries. */
async function graphql(
  init: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<GraphQLAnswer> {
  const res = await send(t.url, {
    method: init.method ?? 'POST',
    path: init.path ?? '/graphql',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...init.headers,
    },
    body: init.body,
  });
  const { errors = [] } = JSON.parse(res.text) as { errors?: GraphQLAnswer['errors'] };
  for (const error of errors)
    expect(catalogued, `${error.message}: not in the catalog`).toContain(
      pair(error.extensions?.code, error.extensions?.http?.status),
    );
  return { status: res.status, headers: res.headers, errors };
}

/** A GraphQL operation, sent with `key` (none: null). */
const query = (text: string, key: string | null = admin, variables?: unknown) =>
  graphql({
    headers: key ? { 'x-api-key': key } : {},
    body: JSON.stringify({ query: text, variables }),
  });

interface RestAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: { error?: string };
}

/** A REST request (or any path); an error status must be catalogued, its body `{"error": ...}`. */
async function rest(
  method: string,
  path: string,
  options: { key?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RestAnswer> {
  const res = await send(t.url, {
    method,
    path: path.startsWith('/external') || path.startsWith('/media/') ? path : `/external/v1${path}`,
    headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...options.headers },
    body: options.body,
  });
  const body = res.text ? JSON.parse(res.text) : {};
  if (res.status >= 400) {
    expect(cataloguedStatuses, `${res.status} ${res.text}: not in the catalog`).toContain(res.status);
    expect(body).toEqual({ error: expect.any(String) });
  }
  return { status: res.status, headers: res.headers, body };
}

/** While `fn` runs, listing teams fails with `error` (a bug, or the database going away). */
async function whileTeamsFail<T>(error: Error, fn: () => Promise<T>): Promise<T> {
  const teams = t.app.database.collections.teams;
  const find = teams.find;
  teams.find = (() => {
    throw error;
  }) as unknown as typeof find;
  try {
    return await fn();
  } finally {
    teams.find = find;
  }
}

/**
 * Holds every page of meetings read while `fn` runs until `fn` has finished: a large request
 * started meanwhile stays in flight (and holds its share of the content budget) for as long.
 */
async function whileMeetingsHang<T>(fn: (started: Promise<void>) => Promise<T>): Promise<T> {
  const meetings = t.app.database.collections.meetings;
  const find = meetings.find;
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached = () => {};
  const started = new Promise<void>((resolve) => {
    reached = resolve;
  });
  meetings.find = ((...args: Parameters<typeof find>) => {
    const cursor = find.apply(meetings, args);
    const toArray = cursor.toArray.bind(cursor);
    cursor.toArray = async () => {
      reached();
      await gate;
      return toArray();
    };
    return cursor;
  }) as typeof find;
  try {
    return await fn(started);
  } finally {
    meetings.find = find;
    release();
  }
}

/**
 * As docs/api/errors.md says: every answer has an X-Request-Id (but those node's parser sends before a
 * request exists: 408, 431), every 429 and 503 a Retry-After.
 */
function expectHeaders(answer: { status: number; headers: Record<string, unknown> }) {
  if (answer.status !== 408 && answer.status !== 431)
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  if (answer.status === 429 || answer.status === 503)
    expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
}

const pages = 'query($first: Int) { meetings(first: $first) { edges { node { transcript { text } } } } }';
const tooLarge = JSON.stringify({ query: `{ viewer { email } } #${'x'.repeat(1024 * 1024)}` });

/** One request that answers each catalogued GraphQL code with its status. */
const graphqlCases: Record<string, () => Promise<GraphQLAnswer>> = {
  'GRAPHQL_PARSE_FAILED 400': () => query('{ viewer { email }'),
  'GRAPHQL_VALIDATION_FAILED 400': () => query('{ viewer { nope } }'),
  'OPERATION_LIMIT_EXCEEDED 400': () =>
    query(`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: viewer { email }`).join(' ')} }`),
  'OPERATION_RESOLUTION_FAILURE 400': () => query('query A { __typename } query B { __typename }'),
  'BAD_REQUEST 400': () => graphql({ headers: { 'x-api-key': admin }, body: '{"variables": {}}' }),
  'BAD_REQUEST 405': () => graphql({ method: 'PUT', body: JSON.stringify({ query: '{ __typename }' }) }),
  'BAD_REQUEST 406': () =>
    graphql({ headers: { accept: 'image/png' }, body: JSON.stringify({ query: '{ __typename }' }) }),
  'BAD_REQUEST 415': () =>
    graphql({ headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: '{ __typename }' }) }),
  'REQUEST_ENTITY_TOO_LARGE 413': () => graphql({ body: tooLarge }),
  'BAD_USER_INPUT 400': () => query('{ meetings(first: 0) { edges { cursor } } }'),
  'UNAUTHENTICATED 401': () => query('{ viewer { email } }', null),
  'FORBIDDEN 403': () => query('{ users { edges { node { email } } } }', member),
  'NOT_FOUND 404': () => query('mutation { deleteWebhook(id: "000000000000000000000000") { deletedId } }'),
  // The demo data has no media.
  'UNPROCESSABLE 422': () =>
    query('mutation { requestDownload(recordingId: 100001) { id } }', keyOf('member: all teams view')),
  'RESYNC_REQUIRED 410': async () => {
    // The cursor of the feed's first change; then retention removes it and what followed.
    const first = await t.graphql('{ meetingChanges(first: 1) { edges { cursor } } }', {}, admin);
    const after = first.body.data.meetingChanges.edges[0].cursor;
    await trimLog(t.app.database.collections, new Date(Date.now() + 31 * 24 * 3600_000), 30 * 24 * 3600_000);
    return query('query($after: String) { meetingChanges(after: $after) { edges { cursor } } }', admin, {
      after,
    });
  },
  'RATE_LIMITED 429': async () => {
    const key = keyOf('member: multiple teams');
    expect((await query(pages, key, { first: 1 })).errors).toEqual([]);
    return query(pages, key, { first: 1 });
  },
  'OVERLOADED 503': async () => {
    // A page of 10 transcripts is estimated at 2 MB: alone it runs, beside another it is shed.
    let first: Promise<GraphQLAnswer> | undefined;
    const second = await whileMeetingsHang(async (started) => {
      first = query(pages, admin, { first: 10 });
      await started;
      return query(pages, keyOf('team admin (Sales)'), { first: 10 });
    });
    expect((await first)?.errors).toEqual([]);
    return second;
  },
  'SERVICE_UNAVAILABLE 503': () =>
    whileTeamsFail(new MongoNetworkError('connection refused'), () =>
      query('{ teams { edges { node { name } } } }'),
    ),
  'INTERNAL_SERVER_ERROR 500': () =>
    whileTeamsFail(new Error('a bug'), () => query('{ teams { edges { node { name } } } }')),
};

/** Node gives up on a request that is too slow (after 20 s at least) with this clientError. */
async function requestTimeout(): Promise<RestAnswer> {
  const server = t.app.server;
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const answer = send(t.url, { path: '/external/v1/teams', headers: { 'x-api-key': admin } });
  const socket = await accepted;
  // What node emits itself when headersTimeout passes, without waiting for it here.
  server.emit(
    'clientError',
    Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    socket,
  );
  const res = await answer;
  expect(cataloguedStatuses).toContain(res.status);
  return { status: res.status, headers: res.headers, body: JSON.parse(res.text) };
}

/** One request that answers each catalogued REST status. */
const restCases: Record<number, () => Promise<RestAnswer>> = {
  400: () => rest('GET', '/meetings?limit=0', { key: admin }),
  401: () => rest('GET', '/meetings'),
  403: () => rest('GET', '/users', { key: member }),
  404: () => rest('DELETE', '/webhooks/000000000000000000000000', { key: admin }),
  405: () => rest('DELETE', '/meetings', { key: admin }),
  408: requestTimeout,
  413: () =>
    rest('POST', '/webhooks', {
      key: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ destination_url: `https://example.com/${'x'.repeat(70_000)}` }),
    }),
  410: () => {
    const link = new URL(t.app.services.mediaLinks.linkTo(new ObjectId(), new Date(Date.now() - 1000)));
    return rest('GET', `${link.pathname}${link.search}`);
  },
  415: () => rest('POST', '/webhooks', { key: admin, headers: { 'content-type': 'text/plain' }, body: '{}' }),
  422: () =>
    rest('POST', '/recordings/100001/download', {
      key: keyOf('member: all teams view'),
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }),
  429: async () => {
    const key = keyOf('member: all teams view');
    expect((await rest('GET', '/recordings/100001/summary', { key })).status).not.toBe(429);
    return rest('GET', '/recordings/100001/summary', { key });
  },
  431: () => rest('GET', '/teams', { key: admin, headers: { 'x-padding': 'x'.repeat(20_000) } }),
  500: () => whileTeamsFail(new Error('a bug'), () => rest('GET', '/teams', { key: admin })),
  503: () =>
    whileTeamsFail(new MongoNetworkError('connection refused'), () => rest('GET', '/teams', { key: admin })),
};

describe('the GraphQL codes of the catalog', () => {
  it('every catalogued code and status has a request that provokes it here', () => {
    expect(Object.keys(graphqlCases).sort()).toEqual([...catalogued].sort());
  });

  for (const [expected, provoke] of Object.entries(graphqlCases)) {
    it(`${expected}: the code in extensions, its status in extensions.http and on the response`, async () => {
      const answer = await provoke();
      const [code, status] = expected.split(' ');
      const error = answer.errors.find((e) => e.extensions?.code === code);
      expect(error, JSON.stringify(answer)).toBeDefined();
      expect(error?.extensions?.http?.status).toBe(Number(status));
      expect(answer.status).toBe(Number(status));
      expect(error?.message.length).toBeGreaterThan(10);
      expectHeaders(answer);
    });
  }

  it('an operation limit names the limit and its maximum, and is no "Syntax Error"', async () => {
    const depth = await query(`{ ${'... on Query { '.repeat(12)}viewer { email }${' }'.repeat(12)} }`);
    expect(depth.errors[0]?.message).toMatch(
      /^The operation nests fields more than 10 levels deep \(the depth limit\)\. /,
    );
    const aliases = await graphqlCases['OPERATION_LIMIT_EXCEEDED 400']!();
    expect(aliases.errors).toHaveLength(1);
    expect(aliases.errors[0]?.message).toMatch(
      /^The operation uses more than 15 aliases \(the alias limit\)\. /,
    );
  });

  it('a refused HTTP request says what to send instead', async () => {
    const message = async (expected: string) => (await graphqlCases[expected]!()).errors[0]?.message;
    expect(await message('BAD_REQUEST 400')).toMatch(/^No GraphQL document was sent: POST a JSON body/);
    expect(await message('BAD_REQUEST 405')).toMatch(/GET and POST only: POST a JSON body/);
    expect(await message('BAD_REQUEST 406')).toMatch(/Send an Accept header naming one of these/);
    expect(await message('REQUEST_ENTITY_TOO_LARGE 413')).toMatch(/too large: at most 1048576 bytes/);
  });
});

describe('the REST statuses of the catalog', () => {
  it('every catalogued status has a request that provokes it here', () => {
    expect(Object.keys(restCases).map(Number).sort()).toEqual([...cataloguedStatuses].sort());
  });

  for (const [status, provoke] of Object.entries(restCases)) {
    it(`${status} with {"error": "..."}`, async () => {
      const answer = await provoke();
      expect(answer.status).toBe(Number(status));
      expect(answer.body.error?.length).toBeGreaterThan(10);
      expectHeaders(answer);
    });
  }

  it('a refused key says what to check, the same for every refusal', async () => {
    const messages = new Set<string>();
    for (const key of ['nope', keyOf('revoked key (401)'), keyOf('deactivated user (401)')]) {
      const res = await rest('GET', '/teams', { key });
      expect(res.status).toBe(401);
      messages.add(res.body.error ?? '');
    }
    expect([...messages]).toEqual([
      expect.stringMatching(/not valid\. Check .*copied whole.*revoked.*still active.*X-Api-Key/),
    ]);
  });
});

describe('docs/api/errors.md', () => {
  const section = readFileSync(new URL('../../docs/api/errors.md', import.meta.url), 'utf8');
  /** The rows of each table of the section, as arrays of cells (header and separator left out). */
  const tables = section
    .split(/\n(?!\|)/)
    .map((block) => block.split('\n').filter((line) => line.startsWith('|')))
    .filter((rows) => rows.length > 0)
    .map((rows) =>
      rows.slice(2).map((row) =>
        row
          .slice(1, -1)
          .split(' | ')
          .map((cell) => cell.trim()),
      ),
    );

  it('has two tables', () => {
    expect(section.length).toBeGreaterThan(0);
    expect(tables).toHaveLength(2);
  });

  it('its GraphQL table lists exactly the catalog', () => {
    expect(
      tables[0]!.map(([code, status, meaning, action]) => ({
        code: code!.replaceAll('`', ''),
        status: Number(status),
        meaning,
        action,
      })),
    ).toEqual(graphqlErrorCodes);
  });

  it('its REST table lists exactly the catalog', () => {
    expect(
      tables[1]!.map(([status, meaning, action]) => ({ status: Number(status), meaning, action })),
    ).toEqual(restErrorStatuses);
  });
});
