/**
 * Introspection is public: GraphiQL (or any tool) gets the schema whatever key it sends, without
 * being refused, throttled or rate-limited; data still needs a valid key.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PLACEHOLDER } from '../../src/graphql/graphiql.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const badKey = 'mk_not_a_key_0000000000000000000000';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('introspection without a valid key', () => {
  it("answers GraphiQL's introspection query with no key, a valid key, a wrong key and the placeholder", async () => {
    for (const key of [undefined, keyOf('account admin'), badKey, API_KEY_PLACEHOLDER]) {
      const res = await t.graphql(getIntrospectionQuery(), undefined, key);
      expect(res.status, `key ${key}`).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.__schema.queryType.name).toBe('Query');
      const query = res.body.data.__schema.types.find((type: { name: string }) => type.name === 'Query');
      expect(query.fields.map((f: { name: string }) => f.name)).toContain('meetings');
    }
  });

  it('answers __type and __typename, also through fragments', async () => {
    const res = await t.graphql(
      `query Describe { ...Schema ... on Query { __typename } }
       fragment Schema on Query { __type(name: "Meeting") { name fields { name } } }`,
      undefined,
      badKey,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__typename).toBe('Query');
    expect(res.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain('transcript');
  });

  it('decides on the operation being run, not on the others in the document', async () => {
    const document = 'query Schema { __schema { queryType { name } } } query Me { viewer { name } }';
    const schema = await fetchGraphQL({ query: document, operationName: 'Schema' }, badKey);
    expect(schema.status).toBe(200);
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
    const me = await fetchGraphQL({ query: document, operationName: 'Me' }, badKey);
    expect(me.status).toBe(401);
    expect(me.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('still refuses a wrong key when the operation selects data too', async () => {
    for (const query of [
      '{ __schema { queryType { name } } viewer { name } }',
      '{ ...Both } fragment Both on Query { __typename meetings(first: 1) { edges { node { title } } } }',
    ]) {
      const res = await t.graphql(query, undefined, badKey);
      expect(res.status, query).toBe(401);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(res.body.data ?? null).toBeNull();
    }
  });

  it('gives no data to an introspection-looking query without a key', async () => {
    const res = await t.graphql('{ __typename meetings(first: 1) { edges { node { title } } } }');
    expect(res.status).toBe(401);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('introspection and the limits', () => {
  let tight: TestApp;
  beforeAll(async () => {
    tight = await startTestApp({ AUTH_FAILURES_PER_MINUTE: '2', RATE_LIMIT_GENERAL: '2' });
  });
  afterAll(async () => {
    await tight?.close();
  });

  it("is not counted against the key's rate limit", async () => {
    const key = keyOf('member: team view');
    for (let i = 0; i < 5; i++) {
      const res = await tight.graphql(getIntrospectionQuery(), undefined, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBeNull();
    }
    const data = await tight.graphql('{ viewer { name } }', undefined, key);
    expect(data.status).toBe(200);
    expect(data.headers.get('ratelimit-remaining')).toBe('1');
  });

  // Last: it leaves this address throttled.
  it('is not counted by the failed-auth throttle, and is answered while an address is throttled', async () => {
    for (let i = 0; i < 5; i++)
      expect((await tight.graphql('{ __typename }', undefined, badKey)).status).toBe(200);
    // The two failures this address may have a minute are still all there.
    expect((await tight.graphql('{ viewer { name } }', undefined, badKey)).status).toBe(401);
    expect((await tight.graphql('{ viewer { name } }', undefined, badKey)).status).toBe(401);
    const throttled = await tight.graphql('{ viewer { name } }', undefined, badKey);
    expect(throttled.status).toBe(429);
    const schema = await tight.graphql('{ __schema { queryType { name } } }', undefined, badKey);
    expect(schema.status).toBe(200);
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
  });
});

async function fetchGraphQL(body: Record<string, unknown>, key: string) {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      'x-api-key': key,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
