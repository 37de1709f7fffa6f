/**
 * /graphql answers content from bytes (src/graphql/content-bytes.ts) and must answer exactly what
 * graphql-js answers over the public schema: the same bytes, key order, nulls and merges. Selections
 * of the content types are generated (fields in any order, aliases, repeated and merged fields,
 * inline fragments with and without type conditions, fragment spreads, @include/@skip with literals
 * and variables, __typename); each document is sent twice (interpreted, then compiled by graphql-jit)
 * and compared with graphql-js's execute of the same document as the same viewer.
 */
import fc from 'fast-check';
import { execute, type GraphQLObjectType, getNamedType, isObjectType, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ContentCache } from '../../src/domain/content-cache.js';
import { authenticate, type Viewer } from '../../src/domain/viewer.js';
import { queryContext } from '../../src/graphql/context.js';
import { operationLimits } from '../../src/graphql/limits.js';
import { schema } from '../../src/graphql/schema/index.js';
import { emailOf, ingest, recordingJson, SERVICE_TOKEN_SHA256 } from '../delivery/support.js';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let viewer: Viewer;
const admin = keyOf('account admin');
/** A recording of the admin's with no content at all. */
let bare: number;

beforeAll(async () => {
  t = await startTestApp({ INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256 });
  const caller = await authenticate(t.app.database.collections, { kind: 'api_key', secret: admin });
  if (!('viewer' in caller)) throw new Error('the admin key names no user');
  viewer = caller.viewer;
  const recording = recordingJson(emailOf('account admin'), {
    transcript: undefined,
    default_summary: undefined,
    action_items: undefined,
    highlights: undefined,
  });
  bare = (await ingest(t, recording)).recordingId;
});
afterAll(() => t.close());

/** The door's answer, as the bytes a client reads. */
async function doorText(query: string, variables: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(admin) },
    body: JSON.stringify({ query, variables }),
  });
  return res.text();
}

/** graphql-js's answer over the public schema, as the same viewer, serialised as Yoga does. */
async function graphqlJsText(query: string, variables: Record<string, unknown>): Promise<string> {
  const result = await execute({
    schema,
    document: parse(query),
    contextValue: queryContext(t.app.database.collections, viewer),
    variableValues: variables,
  });
  return JSON.stringify(result);
}

// ------------------------------------------------------------------------------ generated selections

const meetingType = schema.getType('Meeting') as GraphQLObjectType;
const contentFields = ['transcript', 'defaultSummary', 'actionItems', 'highlights'];
const aliases = ['a', 'b', 'text', 'name', 'x1'];
const directive = fc.constantFrom(
  '',
  '',
  '',
  ' @include(if: true)',
  ' @include(if: false)',
  ' @skip(if: true)',
  ' @skip(if: $no)',
  ' @include(if: $yes)',
);

/** Selections of `type` (an object type of content), with fragment definitions collected in `fragments`. */
function selectionOf(type: GraphQLObjectType, fragments: string[], depth = 0): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields());
  const field = fc
    .record({
      field: fc.constantFrom(...fields),
      alias: fc.option(fc.constantFrom(...aliases), { nil: undefined, freq: 3 }),
      directive,
    })
    .chain(({ field, alias, directive }) => {
      const named = getNamedType(field.type);
      const head = `${alias ? `${alias}: ` : ''}${field.name}${directive}`;
      return isObjectType(named)
        ? selectionOf(named, fragments, depth + 1).map((inner) => `${head} { ${inner} }`)
        : fc.constant(head);
    });
  const nested =
    depth < 2
      ? [
          fc
            .tuple(fc.boolean(), directive, fc.constant(null))
            .chain(([typed, directive]) =>
              selectionOf(type, fragments, depth + 1).map(
                (inner) => `...${typed ? ` on ${type.name}` : ''}${directive} { ${inner} }`,
              ),
            ),
          fc.tuple(directive, selectionOf(type, fragments, depth + 1)).map(([directive, inner]) => {
            const name = `F${fragments.length}`;
            fragments.push(`fragment ${name} on ${type.name} { ${inner} }`);
            return `...${name}${directive}`;
          }),
        ]
      : [];
  const item = fc.oneof(
    { arbitrary: field, weight: 6 },
    { arbitrary: fc.constant('__typename'), weight: 1 },
    ...nested.map((arbitrary) => ({ arbitrary, weight: 1 })),
  );
  return fc.array(item, { minLength: 1, maxLength: 5 }).map((items) => items.join(' '));
}

/** A meeting list selecting content fields (some twice, some aliased), and its fragments. */
const documentArb = fc
  .array(
    fc.record({
      field: fc.constantFrom(...contentFields),
      alias: fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined, freq: 3 }),
      directive,
    }),
    { minLength: 1, maxLength: 4 },
  )
  .chain((picked) => {
    const fragments: string[] = [];
    return fc
      .tuple(
        ...picked.map(({ field, alias, directive }) =>
          selectionOf(getNamedType(meetingType.getFields()[field]!.type) as GraphQLObjectType, fragments).map(
            (inner) => `${alias ? `${alias}: ` : ''}${field}${directive} { ${inner} }`,
          ),
        ),
      )
      .map((selections) => ({ selections, fragments }));
  })
  .map(
    ({ selections, fragments }) =>
      `query Q($yes: Boolean!, $no: Boolean!) { meetings(first: 6) { edges { node { recordingId ${selections.join(' ')} } } } } ${fragments.join(' ')}`,
  )
  // Documents the door would run: valid, and within its alias and directive limits.
  .filter(
    (query) =>
      validate(schema, parse(query)).length === 0 &&
      (query.match(/(?<!\$)\b\w+: \w/g) ?? []).length <= operationLimits.maxAliases &&
      (query.match(/@/g) ?? []).length <= operationLimits.maxDirectives,
  );

describe('content answered from bytes', () => {
  it('is byte for byte what graphql-js answers, for generated selections (interpreted and compiled)', async () => {
    const shaped = vi.spyOn(ContentCache.prototype, 'shaped');
    await fc.assert(
      fc.asyncProperty(documentArb, fc.boolean(), async (query, yes) => {
        const variables = { yes, no: !yes };
        const expected = await graphqlJsText(query, variables);
        expect(JSON.parse(expected).errors).toBeUndefined();
        for (const run of ['interpreted', 'compiled'])
          expect(await doorText(query, variables), `${run}: ${query}`).toBe(expected);
      }),
      { numRuns: 60 },
    );
    // The door took the bytes path (the content cache keeps the shapes it made).
    expect(shaped).toHaveBeenCalled();
    shaped.mockRestore();
  });

  it('answers meetings without content (null or an empty list) as graphql-js does', async () => {
    const query = /* GraphQL */ `query Bare($id: Int!) { meeting(recordingId: $id) {
      recordingId transcript { text } defaultSummary { templateName }
      actionItems { description } highlights { type } } }`;
    const expected = await graphqlJsText(query, { id: bare });
    expect(JSON.parse(expected).data.meeting).toEqual({
      recordingId: bare,
      transcript: null,
      defaultSummary: null,
      actionItems: [],
      highlights: [],
    });
    expect(await doorText(query, { id: bare })).toBe(expected);
    expect(await doorText(query, { id: bare })).toBe(expected);
  });

  it('runs introspection beside content over the public schema', async () => {
    const query = `{ __type(name: "Meeting") { fields { name type { name kind } } } meetings(first: 2) { edges { node { transcript { text } } } } }`;
    expect(await doorText(query, {})).toBe(await graphqlJsText(query, {}));
  });
});
