/**
 * Hot queries run compiled (graphql-jit) from their second execution on; the first runs in
 * graphql-js. A client must not be able to tell: the same request gets the same answer, data and
 * errors alike, however often it is sent.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Collections } from '../../src/db/collections.js';
import { createLogger } from '../../src/logger.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testGraphQLServer } from '../support/graphql-server.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const admin = keyOf('account admin');

/** Builds a Yoga over `collections` whose debug log is kept, and a way to post to it. */
function yogaWithLog(collections: Collections) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const yoga = testGraphQLServer(collections, {
    logger: createLogger('debug', sink),
    corsOrigins: [],
    rateLimits: { limits: { general: 1000, heavy: 1000, download: 1000 }, windowSeconds: 60 },
  });
  const post = async (query: string, variables: Record<string, unknown> = {}, key = admin) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key.startsWith('Bearer ')) headers.authorization = key;
    else headers['x-api-key'] = key;
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: await res.json() };
  };
  const compiled = () => lines.filter((l) => l.msg === 'query compiled').map((l) => l.operationName);
  return { post, compiled };
}

async function thrice(send: () => Promise<unknown>) {
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await send());
  return answers;
}

const richQuery = /* GraphQL */ `
  query Rich($first: Int!, $withSummary: Boolean!, $skipItems: Boolean!) {
    viewer { email }
    latest: meetings(first: $first) {
      edges {
        cursor
        node {
          ...Basics
          id
          defaultSummary @include(if: $withSummary) { markdownFormatted }
          actionItems @skip(if: $skipItems) { description completed }
          highlights { text }
          crmMatches { contacts { name email } companies { name } error }
          transcript { speaker { displayName } text timestamp }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
    again: meetings(first: 2) { edges { node { ... on Meeting { title } } } }
  }
  fragment Basics on Meeting { recordingId title recordedBy { email name team } sharedWith }
`;

describe('compiled execution', () => {
  it('a rich query (fragments, aliases, @include/@skip, every content field) answers the same every time, compiled from the second', async () => {
    const y = yogaWithLog(t.app.database.collections);
    const variables = { first: 5, withSummary: true, skipItems: false };
    const answers = await thrice(() => y.post(richQuery, variables));
    expect(answers[0]).toMatchObject({ status: 200 });
    expect((answers[0] as any).body.data.latest.edges).toHaveLength(5);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(y.compiled()).toEqual(['Rich']);
    // The directives still follow the variables once compiled.
    const flipped = await y.post(richQuery, { first: 5, withSummary: false, skipItems: true });
    const node = flipped.body.data.latest.edges[0].node;
    expect(node).not.toHaveProperty('defaultSummary');
    expect(node).not.toHaveProperty('actionItems');
  });

  it('bad variables are the same BAD_USER_INPUT, with locations, compiled or not', async () => {
    const y = yogaWithLog(t.app.database.collections);
    const query = 'query Page($first: Int) { meetings(first: $first) { edges { cursor } } }';
    await thrice(() => y.post(query, { first: 3 }));
    const answers = await thrice(() => y.post(query, { first: 'many' }));
    expect(answers[0]).toMatchObject({
      status: 400,
      body: { errors: [{ extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } }] },
    });
    expect((answers[0] as any).body.errors[0].locations).toEqual([{ line: 1, column: 12 }]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(y.compiled()).toEqual(['Page']);
  });

  it('a failing store is the same masked INTERNAL_SERVER_ERROR at the same path, compiled or not', async () => {
    const broken = {
      ...t.app.database.collections,
      transcripts: {
        find: () => {
          throw new Error('secret detail');
        },
      },
    } as unknown as Collections;
    const y = yogaWithLog(broken);
    const query = 'query Lines { meetings(first: 1) { edges { node { title transcript { text } } } } }';
    const answers = await thrice(() => y.post(query));
    const body = (answers[0] as any).body;
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        path: ['meetings', 'edges', 0, 'node', 'transcript'],
        extensions: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
      }),
    ]);
    expect(JSON.stringify(answers)).not.toContain('secret detail');
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("a connected app's refused content selection is refused the same way every time", async () => {
    const y = yogaWithLog(t.app.database.collections);
    const query = 'query Refused { meetings(first: 1) { edges { node { transcript { text } } } } }';
    const answers = await thrice(() => y.post(query, {}, `Bearer ${keyOf('connected app (Tom)')}`));
    expect(answers[0]).toMatchObject({
      status: 400,
      body: { errors: [{ message: 'OAuth users are not allowed to include transcript.' }] },
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});
