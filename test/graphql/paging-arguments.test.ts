/**
 * Lists page forward only, so connections advertise `first` and `after` and nothing the server
 * would refuse: `before` and `last` are not arguments (a document using them does not validate).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const admin = keyOf('account admin');

/** Arguments a list takes besides paging: what it is filtered and ordered by. */
const filterArgs: Record<string, string[]> = {
  'Query.meetings': ['filter', 'orderBy'],
  'Query.users': ['filter'],
  'Query.teamMembers': ['team'],
};

const introspection = /* GraphQL */ `{
  __schema {
    types {
      name
      fields { name args { name } type { name kind ofType { name kind } } }
    }
  }
}`;

describe('connections page forward only', () => {
  it('every connection field takes exactly first and after (and its filters and order)', async () => {
    const res = await t.graphql(introspection);
    expect(res.body.errors).toBeUndefined();
    const connectionFields: Record<string, string[]> = {};
    for (const type of res.body.data.__schema.types) {
      if (type.name.startsWith('__')) continue;
      for (const field of type.fields ?? []) {
        const named = field.type.ofType?.name ?? field.type.name;
        if (named?.endsWith('Connection'))
          connectionFields[`${type.name}.${field.name}`] = field.args.map((a: { name: string }) => a.name);
      }
    }
    expect(Object.keys(connectionFields).sort()).toEqual([
      'Query.meetingChanges',
      'Query.meetingTypes',
      'Query.meetings',
      'Query.teamMembers',
      'Query.teams',
      'Query.users',
      'Webhook.deliveries',
    ]);
    for (const [field, args] of Object.entries(connectionFields))
      expect([...args].sort(), field).toEqual(['after', 'first', ...(filterArgs[field] ?? [])].sort());
  });

  it.each([
    ['{ meetings(last: 5) { edges { cursor } } }', 'last'],
    ['{ teams(first: 2, before: "x") { edges { cursor } } }', 'before'],
    ['{ webhooks { deliveries(last: 1) { edges { cursor } } } }', 'last'],
  ])('%s does not validate: 400', async (query, arg) => {
    const res = await t.graphql(query, {}, admin);
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]!.message).toContain(`Unknown argument "${arg}"`);
    // Yoga's code for documents that do not validate (see the report on BAD_USER_INPUT).
    expect(res.body.errors![0]!.extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      http: { status: 400 },
    });
  });
});
