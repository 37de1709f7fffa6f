/**
 * @defer and @stream on /graphql: the answer comes in parts (multipart/mixed, or server-sent events),
 * the first without what was deferred, and the parts put together are the answer without them.
 * Deferred content counts as content (rate limits, load shedding), and what the spec forbids is a
 * clear 400.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateContentBytes } from '../../src/graphql/admission.js';
import { selectsHeavyField } from '../../src/graphql/rate-limit.js';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const admin = keyOf('account admin');
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Part = {
  data?: any;
  hasNext?: boolean;
  errors?: unknown[];
  incremental?: { data?: any; items?: unknown[]; path: (string | number)[]; label?: string }[];
};

function post(query: string, accept: string, variables: Record<string, unknown> = {}) {
  return fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...authHeaders(admin) },
    body: JSON.stringify({ query, variables }),
  });
}

/** The JSON parts of a multipart/mixed answer, in order (each part: headers, a blank line, JSON). */
function multipartParts(body: string): Part[] {
  return body
    .split(/\r\n---/)
    .map((chunk) => chunk.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim())
    .filter((json) => json.startsWith('{'))
    .map((json) => JSON.parse(json));
}

/** The `next` events of a text/event-stream answer. */
function eventParts(body: string): Part[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('event: next'))
    .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)));
}

/** The answer the parts make together: deferred data merged in at its path, streamed items appended. */
function assembled(parts: Part[]): any {
  const [first, ...rest] = parts;
  const data = structuredClone(first!.data);
  for (const part of rest)
    for (const piece of part.incremental ?? []) {
      // A stream's path names the index of its first item; a deferred fragment's, its object.
      const path = piece.items ? piece.path.slice(0, -1) : piece.path;
      const target = path.reduce((at: any, key) => at[key], data);
      if (piece.items) target.push(...piece.items);
      else Object.assign(target, piece.data);
    }
  return data;
}

const deferred = /* GraphQL */ `query Deferred {
  meetings(first: 5) { edges { node { recordingId title
    ... @defer(label: "content") { transcript { speaker { displayName } text } defaultSummary { markdownFormatted } }
  } } }
}`;
const whole = deferred.replace(' @defer(label: "content")', '');

describe('@defer', () => {
  it('answers the list first and each meeting’s content after it; together, the undeferred answer', async () => {
    const res = await post(deferred, 'multipart/mixed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = multipartParts(await res.text());
    const [first, ...later] = parts;
    expect(first!.hasNext).toBe(true);
    const nodes = first!.data.meetings.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(5);
    for (const node of nodes) expect(Object.keys(node)).toEqual(['recordingId', 'title']);
    expect(later.flatMap((p) => p.incremental ?? []).every((i) => i.label === 'content')).toBe(true);
    expect(later.at(-1)!.hasNext).toBe(false);
    const undeferred = (await t.graphql(whole, {}, admin)).body.data;
    expect(undeferred.meetings.edges[0].node.transcript.length).toBeGreaterThan(0);
    expect(assembled(parts)).toEqual(undeferred);
  });

  it('streams as server-sent events too', async () => {
    const res = await post(deferred, 'text/event-stream');
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const parts = eventParts(await res.text());
    expect(parts.length).toBeGreaterThan(1);
    expect(assembled(parts)).toEqual((await t.graphql(whole, {}, admin)).body.data);
  });

  it('is refused with what to send to a client that accepts JSON only (406)', async () => {
    const res = await post(deferred, 'application/json');
    expect(res.status).toBe(406);
    const body = await res.json();
    expect(body.errors[0].message).toMatch(/multipart\/mixed/);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', http: { status: 406 } });
  });
});

describe('@stream', () => {
  it('sends the first items of a transcript at once and the rest after; together, the whole transcript', async () => {
    const query = (directive: string) => `query Streamed {
      meetings(first: 2) { edges { node { recordingId transcript ${directive} { timestamp text } } } }
    }`;
    const parts = multipartParts(
      await (await post(query('@stream(initialCount: 2)'), 'multipart/mixed')).text(),
    );
    const first = parts[0]!.data.meetings.edges.map((e: any) => e.node.transcript);
    expect(first.every((t: unknown[] | null) => t === null || t.length <= 2)).toBe(true);
    expect(parts.length).toBeGreaterThan(1);
    expect(assembled(parts)).toEqual((await t.graphql(query(''), {}, admin)).body.data);
  });
});

describe('deferred content is content', () => {
  it('for rate limits and load shedding, as if it were not deferred', () => {
    const document = parse(deferred);
    expect(selectsHeavyField(document, {})).toBe(true);
    expect(estimateContentBytes(document, {})).toBe(estimateContentBytes(parse(whole), {}));
    expect(estimateContentBytes(document, {})).toBeGreaterThan(0);
  });
});

describe('what the spec forbids is a 400 naming the rule', () => {
  it.each([
    [
      '@defer on the mutation root',
      'mutation { ... @defer { revokeApiKey(id: "x") { id } } }',
      /root mutation type/,
    ],
    [
      '@defer on the subscription root',
      'subscription { ... @defer { meetingContentReady { title } } }',
      /root subscription type/,
    ],
    [
      '@stream on a field that is not a list',
      '{ meetings(first: 1) @stream { edges { node { title } } } }',
      /non-list field/,
    ],
  ])('%s', async (_what, query, message) => {
    const res = await post(query, 'application/json');
    expect(res.status).toBe(200); // GraphQL over HTTP: a document that does not validate, to a JSON-only client
    const body = await res.json();
    expect(body.errors[0].message).toMatch(message);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      http: { status: 400 },
    });
  });

  it('a negative @stream initialCount, written or in a variable, is BAD_USER_INPUT (400), not a 500', async () => {
    for (const [query, variables] of [
      ['{ meetings(first: 1) { edges @stream(initialCount: -1) { node { title } } } }', {}],
      [
        'query ($n: Int!) { meetings(first: 1) { edges @stream(initialCount: $n) { node { title } } } }',
        { n: -3 },
      ],
    ] as const) {
      const res = await post(query, 'multipart/mixed', variables);
      expect(res.status).toBe(400);
      const [part] = multipartParts(await res.text());
      expect(part!.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/initialCount.*0 or more/),
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
        }),
      ]);
    }
  });
});
