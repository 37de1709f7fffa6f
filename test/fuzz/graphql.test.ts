/**
 * Fuzzing the GraphQL door (/graphql): broken documents; documents generated from the real schema
 * (random fields, arguments of right and wrong types, aliases, fragments, directives, variables,
 * several operations); operation limits; random variables; cursors; global ids; the HTTP transport
 * (methods, content types, bodies, query parameters, headers, credentials); mutations with random
 * input; subscriptions over server-sent events. Whatever comes in, the answer is never a 5xx, it is
 * JSON, every error has `extensions.code` and an `extensions.http.status` that matches the
 * response, nothing internal leaks, the egress guard refuses every (private) destination, and
 * afterwards the service is still healthy. FUZZ_SEED=<seed> replays a failing run (fast-check
 * prints the seed and the path).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  parseType,
  typeFromAST,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { authenticate, hashSecret } from '../../src/domain/viewer.js';
import { createWebhook } from '../../src/domain/webhooks.js';
import { graphqlErrorCodes } from '../../src/http/error-catalog.js';
import { keyOf, type TestApp } from '../support/app.js';
import {
  checkGraphQLAnswer,
  checkHealthy,
  cursorArbitrary,
  fuzzParameters,
  type GraphQLPayload,
  headerSafe,
  localishUrl,
  nastyString,
  percentEncode,
  privateUrl,
  type RawResponse,
  send,
  startFuzzApp,
  staysLocal,
} from './support.js';

/** "CODE status" of every catalogued GraphQL error. */
const cataloguedCodes = graphqlErrorCodes.map((e) => `${e.code} ${e.status}`);

const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

let app: TestApp;
let counted = 0;
const admin = keyOf('account admin');
const appToken = keyOf('connected app (Tom)');
/** The ingestion service's token (INGEST_TOKEN_SHA256 of the fuzz app): lets ingestRecording be fuzzed too. */
const serviceToken = 'fuzz-ingestion-service-token-7f3a9c';
/** A webhook of the account admin, stored directly (its URL is refused by the guard, and no worker runs). */
const seededWebhookUrl = 'http://127.0.0.1:9/fuzz-seeded';
const known = { webhookId: '', cursors: [] as Cursor[] };

interface Cursor {
  cursor: string;
  /** The list and filter it was made for (a key of `cursorLists`). */
  list: string;
}

// ------------------------------------------------------------------------------------ requests

function describeRequest(method: string, path: string, headers: Record<string, string>, body?: string) {
  const shown = JSON.stringify(headers).replaceAll(admin, '<admin>');
  return `${method} ${path.slice(0, 600)} ${shown.slice(0, 300)} ${body?.slice(0, 1500) ?? ''}`;
}

/** One request; the answer must hold every invariant of checkGraphQLAnswer. */
async function ask(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ res: RawResponse; payloads: GraphQLPayload[]; what: string }> {
  const res = await send(app.url, { method, path, headers, body, streamMs: 100 });
  counted++;
  const what = describeRequest(method, path, headers, body);
  // node:http refuses a request head over 16 KiB itself (431, before any handler runs).
  const head = path.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (res.status === 431 && head > 16_000) return { res, payloads: [], what };
  const payloads = checkGraphQLAnswer(res, method, what);
  // Every error a client can meet is explained in the catalog (docs/api/errors.md), with its status.
  for (const error of payloads.flatMap((p) => p.errors ?? []))
    expect(cataloguedCodes, what).toContain(`${error.extensions?.code} ${error.extensions?.http?.status}`);
  return { res, payloads, what };
}

const defaultAccept = 'application/graphql-response+json, application/json';

/** POSTs an operation as JSON. */
function post(
  query: string,
  variables?: unknown,
  headers: Record<string, string> = { 'x-api-key': admin },
  extra: Record<string, unknown> = {},
) {
  return ask(
    'POST',
    '/graphql',
    { 'content-type': 'application/json', accept: defaultAccept, ...headers },
    JSON.stringify({ query, variables, ...extra }),
  );
}

/** Webhooks and queued deliveries may only ever point at the seeded URL: the guard refuses everything else. */
async function checkNothingQueued(what: string): Promise<void> {
  const { webhooks, outbox } = app.app.database.collections;
  const urls = [
    ...(await webhooks.find({}, { projection: { url: 1 } }).toArray()).map((w) => w.url),
    ...(await outbox.find({}, { projection: { destinationUrl: 1 } }).toArray()).map((o) => o.destinationUrl),
  ];
  const escaped = urls.filter((url) => url !== seededWebhookUrl);
  if (escaped.length > 0) throw new Error(`the egress guard let ${escaped.join(', ')} through: ${what}`);
}

// --------------------------------------------------------------------------------- arbitraries

/** Credentials: good ones of every kind of persona, refused ones, the service token, malformed ones. */
const credential: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': admin }) },
  fc.constantFrom<Record<string, string>>(
    { 'x-api-key': keyOf('team admin (Sales)') },
    { 'x-api-key': keyOf('member: own meetings + CRM') },
    { 'x-api-key': keyOf('member: team view') },
    { 'x-api-key': keyOf('member: multiple teams') },
    { 'x-api-key': keyOf('member: all teams view') },
    { 'x-api-key': keyOf('external user (Globex)') },
    { authorization: `Bearer ${appToken}` },
    { authorization: `bearer   ${appToken}  ` },
    { 'x-api-key': appToken },
    { authorization: `Bearer ${admin}` },
    { 'x-api-key': ` ${admin} ` },
    { 'x-api-key': keyOf('deactivated user (401)') },
    { 'x-api-key': keyOf('invited user (401)') },
    { 'x-api-key': keyOf('revoked key (401)') },
    { authorization: `Bearer ${serviceToken}` },
    { authorization: `Bearer ${serviceToken}`, 'x-api-key': admin },
    { authorization: 'Bearer' },
    { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    {},
  ),
  nastyString.filter(headerSafe).map((k) => ({ 'x-api-key': k })),
  nastyString.filter(headerSafe).map((k) => ({ authorization: `Bearer ${k}` })),
  nastyString.filter(headerSafe).map((k) => ({ authorization: k })),
);

const acceptHeader: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Record<string, string>>({ accept: defaultAccept }) },
  fc.constantFrom<Record<string, string>>(
    {},
    { accept: 'application/json' },
    { accept: 'application/graphql-response+json' },
    { accept: '*/*' },
    { accept: 'text/event-stream' },
    { accept: 'multipart/mixed' },
  ),
);

/** A value of the value model: JSON, plus enum names and raw literal text (both render differently). */
class Enum {
  constructor(readonly name: string) {}
}
class Raw {
  constructor(
    readonly text: string,
    readonly json: unknown,
  ) {}
}
type Value = null | boolean | number | string | Enum | Raw | Value[] | { [key: string]: Value };

/** As a GraphQL literal. */
function literal(value: Value): string {
  if (value instanceof Enum) return value.name;
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/** As a JSON variable value. */
function toJson(value: Value): unknown {
  if (value instanceof Enum) return value.name;
  if (value instanceof Raw) return value.json;
  if (Array.isArray(value)) return value.map(toJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return value;
}

const enumValues = schema
  .toConfig()
  .types.flatMap((t) => (isEnumType(t) && !t.name.startsWith('__') ? t.getValues().map((v) => v.name) : []));

/** Values of the wrong type (or shape) for wherever they land. */
const wrongValue: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom<Value>(
    0,
    -1,
    1.5,
    2147483648,
    -2147483649,
    1e21,
    '',
    'x',
    true,
    false,
    null,
    [],
    [null],
    [[1]],
    new Enum('NOPE'),
    new Enum('MY_RECORDINGS'),
    new Raw('$undeclared', null),
    new Raw('"""block\n  string"""', 'block\n  string'),
    new Raw('99999999999999999999999', 1e23),
    new Raw('1e999', 1e308),
    new Raw('-0.0', -0),
    new Raw('"\\u{1F600}"', '😀'),
    new Raw('"\\uD800"', '\uD800'),
  ),
  // Never a URL to look up: a wrong value may land in destinationUrl.
  nastyString.filter(staysLocal),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.dictionary(fc.constantFrom('a', 'url', 'first', 'teams'), fc.oneof(fc.integer(), nastyString), {
    maxKeys: 3,
  }),
);

const ints = fc.oneof(
  fc.constantFrom(1, 2, 10, 100, 0, -1, 101, 2147483647, -2147483648),
  fc.integer({ min: -5, max: 120 }),
);
const recordingIds = fc.oneof(
  fc.constantFrom(100001, 100002, 100050, 100195, 100200, 100201, 1, 0, -1, 2147483647),
  fc.integer({ min: 100000, max: 100210 }),
);
const names = fc.constantFrom(
  'Sales',
  'Engineering',
  'Marketing',
  'Support',
  'Discovery Call',
  'sales',
  'Nope',
  '',
);
const emails = fc.oneof(
  fc.constantFrom(
    'alice.moreau@acme.test',
    'ALICE.MOREAU@ACME.TEST',
    'someone@globex.test',
    'nobody@nowhere.test',
    'nope',
    '@',
    'a@b.c',
    `${'x'.repeat(250)}@a.bc`,
  ),
  nastyString,
);
const domains = fc.oneof(
  fc.constantFrom('acme.test', 'globex.test', 'ACME.TEST', '', '.*', '^a', '(a+)+$', 'a'.repeat(300)),
  nastyString,
);
const dates = fc.oneof(
  fc.constantFrom(
    '2026-01-31T09:00:00Z',
    '2024-01-01T00:00:00+02:00',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '0000-01-01T00:00:00Z',
    '2026-01-01T00:00:00',
    '2026-01-01',
    'yesterday',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:00-23:59',
    '2026-01-01T00:00:00+99:99',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  nastyString,
);

/** Relay global ids (base64 of "Type:id"), forged in every way, and other ids. */
const globalIdParts = fc.tuple(
  fc.constantFrom(
    'Meeting',
    'Meeting',
    'Meeting',
    'User',
    'Webhook',
    'Team',
    'Node',
    'Query',
    '__proto__',
    '',
    'meeting',
  ),
  fc.oneof(
    recordingIds.map(String),
    fc.constantFrom(
      '',
      'abc',
      '1e3',
      '0x10',
      ' 100001',
      '100001 ',
      '1.5',
      '9007199254740993',
      '-0',
      ':',
      '100001:1',
    ),
  ),
  fc.constantFrom('base64', 'base64url', 'plain', 'base64', 'base64'),
);
const encodeGlobalId = ([type, id, how]: [string, string, string]) =>
  how === 'plain' ? `${type}:${id}` : Buffer.from(`${type}:${id}`).toString(how as BufferEncoding);
const ids = fc.oneof(
  { weight: 3, arbitrary: globalIdParts.map(encodeGlobalId) },
  fc.constant(known).map((k) => k.webhookId),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 }),
  fc.constantFrom('msg_x', 'msg_', '0'),
  nastyString,
);

const cursor = fc.constant(known).chain((k) => cursorArbitrary(k.cursors.map((c) => c.cursor)));

/** `ingestRecording` input: demo recordings edited at random paths, random JSON, not JSON. */
const DELETE = Symbol('delete');
function edit(value: unknown, edits: [number, unknown][]): unknown {
  const copy = structuredClone(value);
  for (const [at, replacement] of edits) {
    const slots: [Record<string, unknown>, string][] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        slots.push([node as Record<string, unknown>, k]);
        walk(v);
      }
    };
    walk(copy);
    if (slots.length === 0) break;
    const [parent, key] = slots[at % slots.length]!;
    if (replacement === DELETE) delete parent[key];
    else parent[key] = replacement;
  }
  return copy;
}
const demoMeetings = demoDataset().meetings.slice(0, 30);
const recording: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...demoMeetings),
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.oneof(
              fc.jsonValue({ maxDepth: 2 }),
              nastyString,
              fc.constant(DELETE),
              fc.integer(),
              dates,
              emails,
            ),
          ),
          { maxLength: 3 },
        ),
        fc.oneof(
          fc.constant(undefined),
          fc.integer({ min: 900_000, max: 900_050 }),
          fc.constantFrom<unknown>(0, -1, 1.5, 2 ** 31, 2 ** 53, '100001', null),
        ),
      )
      .map(([meeting, edits, id]) =>
        JSON.stringify(edit(id === undefined ? meeting : { ...meeting, recording_id: id }, edits)),
      ),
  },
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  nastyString,
);

// ------------------------------------------------------------------- documents from the schema

type G = fc.GeneratorValue;
const draw = <T>(g: G, arb: fc.Arbitrary<T>): T => g(() => arb);
const upTo = (g: G, max: number): number => g(fc.integer, { min: 0, max });
const oneIn = (g: G, n: number): boolean => upTo(g, n - 1) === 0;

/** A string for an argument, by what the argument means. */
function stringFor(g: G, arg: string): Value {
  switch (arg) {
    case 'destinationUrl':
      return draw(g, fc.oneof(privateUrl, localishUrl));
    case 'after':
      return draw(g, cursor);
    case 'team':
    case 'teams':
    case 'meetingType':
      return draw(g, names);
    case 'companyDomains':
      return draw(g, domains);
    case 'recording':
      return draw(g, recording);
    default:
      return draw(g, nastyString);
  }
}

/** A value for an input type: mostly of that type (with domain-flavoured values), sometimes not. */
function valueFor(g: G, type: GraphQLInputType, arg: string, depth = 0): Value {
  if (oneIn(g, 8)) return draw(g, wrongValue);
  if (isNonNullType(type)) return valueOfNullable(g, type.ofType, arg, depth);
  if (oneIn(g, 10)) return null;
  return valueOfNullable(g, type, arg, depth);
}

function valueOfNullable(g: G, type: GraphQLInputType, arg: string, depth: number): Value {
  if (isListType(type)) {
    // A single value coerces to a list of one.
    if (oneIn(g, 5)) return valueFor(g, type.ofType, arg, depth + 1);
    return Array.from({ length: upTo(g, depth > 1 ? 1 : 4) }, () => valueFor(g, type.ofType, arg, depth + 1));
  }
  if (isInputObjectType(type)) {
    const fields: Record<string, Value> = Object.create(null);
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) ? !oneIn(g, 12) : oneIn(g, 2))
        fields[field.name] = valueFor(g, field.type, field.name, depth + 1);
    }
    if (oneIn(g, 10))
      fields[draw(g, fc.constantFrom('nope', 'url', '__proto__', 'constructor'))] = draw(g, wrongValue);
    return fields;
  }
  if (isEnumType(type)) {
    const own = type.getValues().map((v) => v.name);
    return new Enum(
      draw(g, oneIn(g, 8) ? fc.constantFrom(...enumValues, 'NOPE', 'true', 'null') : fc.constantFrom(...own)),
    );
  }
  switch (getNamedType(type).name) {
    case 'Int':
      return draw(g, arg === 'recordingId' ? recordingIds : ints);
    case 'Float':
      return draw(g, fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'Boolean':
      return draw(g, fc.boolean());
    case 'ID':
      return draw(g, ids);
    case 'DateTime':
      return draw(g, dates);
    case 'Email':
      return draw(g, emails);
    default:
      return stringFor(g, arg);
  }
}

interface DocState {
  g: G;
  /** Selections left: documents stay small. */
  budget: number;
  counter: number;
  fragments: string[];
  variables: Record<string, unknown>;
}

/** An operation's variable definitions, collected while its selections are generated. */
interface OpState {
  definitions: string[];
}

const otherTypes = fc.constantFrom(
  'Int',
  'String!',
  '[ID!]!',
  'Boolean',
  'MeetingFilter',
  'Nope',
  'DateTime!',
  'Email',
);
const booleanType = typeFromAST(schema, parseType('Boolean!')) as GraphQLInputType;

/** An argument's value: a literal, or a variable (declared with its type or another, given or not). */
function argument(doc: DocState, op: OpState | undefined, type: GraphQLInputType, name: string): string {
  const { g } = doc;
  const value = valueFor(g, type, name);
  if (!op || !oneIn(g, 4)) return literal(value);
  const variable = `v${doc.counter++}`;
  const declared = oneIn(g, 6) ? draw(g, otherTypes) : String(type);
  const fallback = oneIn(g, 6) ? ` = ${literal(valueFor(g, type, name))}` : '';
  op.definitions.push(`$${variable}: ${declared}${fallback}`);
  if (!oneIn(g, 8)) doc.variables[variable] = toJson(value);
  return `$${variable}`;
}

function argumentsOf(doc: DocState, op: OpState | undefined, field: GraphQLField<unknown, unknown>): string {
  const { g } = doc;
  const parts: string[] = [];
  for (const arg of field.args) {
    const include = isNonNullType(arg.type) ? !oneIn(g, 15) : oneIn(g, 3);
    if (include) parts.push(`${arg.name}: ${argument(doc, op, arg.type, arg.name)}`);
  }
  if (oneIn(g, 15))
    parts.push(
      `${draw(g, fc.constantFrom('nope', 'first', 'id', 'limit'))}: ${literal(draw(g, wrongValue))}`,
    );
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

function directives(doc: DocState, op: OpState | undefined): string {
  const { g } = doc;
  if (!oneIn(g, 6)) return '';
  return Array.from({ length: 1 + upTo(g, 1) }, () => {
    const roll = upTo(g, 9);
    if (roll === 0)
      return draw(
        g,
        fc.constantFrom(
          '@nope',
          '@deprecated',
          '@skip',
          '@include(if: true, if: false)',
          '@specifiedBy(url: "x")',
          '@skip(if: "true")',
        ),
      );
    return `${roll % 2 ? '@skip' : '@include'}(if: ${argument(doc, op, booleanType, 'if')})`;
  }).join(' ');
}

function selectionSet(
  doc: DocState,
  op: OpState | undefined,
  type: GraphQLCompositeType,
  depth: number,
): string {
  const count = 1 + upTo(doc.g, 3);
  return `{ ${Array.from({ length: count }, () => selection(doc, op, type, depth)).join(' ')} }`;
}

/** The type a fragment on `type` is written for, right or (sometimes) wrong. */
function fragmentType(g: G, type: GraphQLCompositeType): { name: string; type: GraphQLCompositeType } {
  const possible = isInterfaceType(type) ? schema.getPossibleTypes(type) : [type];
  const on = possible[upTo(g, possible.length - 1)]!;
  if (!oneIn(g, 8)) return { name: on.name, type: on };
  const name = draw(g, fc.constantFrom('Team', 'Query', 'Nope', 'Node', 'String'));
  const named = schema.getType(name);
  return { name, type: named && isCompositeType(named) ? named : on };
}

function selection(
  doc: DocState,
  op: OpState | undefined,
  type: GraphQLCompositeType,
  depth: number,
): string {
  const { g } = doc;
  if (--doc.budget < 0) return '__typename';
  const roll = upTo(g, 99);
  if (roll < 5) {
    const on = fragmentType(g, type);
    const condition = oneIn(g, 4) ? '' : `on ${on.name} `;
    return `... ${condition}${directives(doc, op)} ${selectionSet(doc, op, on.type, depth)}`;
  }
  if (roll < 9) {
    // Fragments use no variables: each operation would have to declare them.
    const name = `F${doc.fragments.length}`;
    const on = fragmentType(g, type);
    doc.fragments.push(`fragment ${name} on ${on.name} ${selectionSet(doc, undefined, on.type, depth)}`);
    return `...${name} ${directives(doc, op)}`;
  }
  if (roll < 11)
    return draw(
      g,
      fc.constantFrom(
        'nope',
        '__schema { queryType { name } }',
        '__type(name: "Meeting") { name kind }',
        'a: b',
        '...F99',
      ),
    );
  const fields = isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
  if (fields.length === 0 || roll < 14) return `__typename ${directives(doc, op)}`;
  const field = fields[upTo(g, fields.length - 1)]!;
  const alias = oneIn(g, 6)
    ? `${draw(g, fc.constantFrom('a', 'b', 'x', field.name, 'id', '__typename'))}: `
    : '';
  const named = getNamedType(field.type);
  let sub = '';
  if (isCompositeType(named)) {
    if (!oneIn(g, 25)) sub = depth > 0 ? selectionSet(doc, op, named, depth - 1) : '{ __typename }';
  } else if (oneIn(g, 40)) sub = '{ __typename }';
  return `${alias}${field.name}${argumentsOf(doc, op, field)} ${directives(doc, op)} ${sub}`;
}

type OperationKind = 'query' | 'mutation' | 'subscription';

interface GeneratedDocument {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
  kinds: OperationKind[];
}

/** A document of one to three operations of `kinds`, with its variables and an operation name. */
function generateDocument(g: G, kinds: OperationKind[]): GeneratedDocument {
  const doc: DocState = { g, budget: 25, counter: 0, fragments: [], variables: Object.create(null) };
  const count = oneIn(g, 5) ? 2 + upTo(g, 1) : 1;
  const operations: string[] = [];
  const opNames: string[] = [];
  const chosen: OperationKind[] = [];
  for (let i = 0; i < count; i++) {
    const kind = draw(g, fc.constantFrom(...kinds));
    chosen.push(kind);
    const root =
      kind === 'query'
        ? schema.getQueryType()!
        : kind === 'mutation'
          ? schema.getMutationType()!
          : schema.getSubscriptionType()!;
    const op: OpState = { definitions: [] };
    const body =
      kind === 'subscription'
        ? `{ ${oneIn(g, 4) ? 'm: ' : ''}meetingContentReady ${directives(doc, op)} ${selectionSet(doc, op, schema.getType('Meeting') as GraphQLCompositeType, upTo(g, 3))} }`
        : selectionSet(doc, op, root, upTo(g, 4));
    const name = count > 1 || oneIn(g, 2) ? draw(g, fc.constantFrom('A', 'B', 'Q', `Op${i}`, 'query')) : '';
    if (name) opNames.push(name);
    const definitions = op.definitions.length > 0 ? `(${op.definitions.join(', ')})` : '';
    operations.push(
      kind === 'query' && !name && !definitions && oneIn(g, 2)
        ? body
        : `${kind} ${name}${definitions} ${body}`,
    );
  }
  const roll = upTo(g, 9);
  const operationName =
    roll < 5
      ? undefined
      : roll < 8 && opNames.length > 0
        ? draw(g, fc.constantFrom(...opNames))
        : draw(g, nastyString);
  return {
    query: [...operations, ...doc.fragments].join('\n'),
    variables: doc.variables,
    operationName,
    kinds: chosen,
  };
}

// ------------------------------------------------------------------------------- setup, teardown

/** The lists with cursors, by name: each a query taking `$after` (and their filters). */
const cursorLists: Record<string, string> = {
  meetings: 'meetings(first: 3, after: $after) { edges { cursor } pageInfo { endCursor } }',
  'meetings/Sales':
    'meetings(first: 3, after: $after, filter: { teams: ["Sales"] }) { pageInfo { endCursor } }',
  'meetings/internal':
    'meetings(first: 3, after: $after, filter: { domainsType: ONLY_INTERNAL }) { pageInfo { endCursor } }',
  teams: 'teams(first: 1, after: $after) { edges { cursor node { name } } pageInfo { endCursor } }',
  teamMembers: 'teamMembers(first: 2, after: $after) { pageInfo { endCursor } }',
  'teamMembers/Sales': 'teamMembers(first: 2, after: $after, team: "Sales") { pageInfo { endCursor } }',
  meetingTypes: 'meetingTypes(first: 1, after: $after) { pageInfo { endCursor } }',
  users: 'users(first: 2, after: $after) { pageInfo { endCursor } }',
  'users/active': 'users(first: 2, after: $after, filter: { status: ACTIVE }) { pageInfo { endCursor } }',
};

beforeAll(async () => {
  app = await startFuzzApp({ INGEST_TOKEN_SHA256: hashSecret(serviceToken) });
  const { collections } = app.app.database;
  const caller = await authenticate(collections, { kind: 'api_key', secret: admin });
  if (!('viewer' in caller)) throw new Error('the admin key names no user');
  const { viewer } = caller;
  const webhook = await createWebhook(
    collections,
    viewer,
    {
      destinationUrl: seededWebhookUrl,
      triggeredFor: ['my_recordings', 'shared_team_recordings'],
      includeTranscript: false,
      includeCrmMatches: false,
      includeSummary: true,
      includeActionItems: false,
    },
    async () => {}, // stored as it is: the guard would (rightly) refuse it, and no worker sends anything
  );
  known.webhookId = webhook._id.toHexString();
  for (const [list, selection] of Object.entries(cursorLists)) {
    const answer = await app.graphql(`query($after: String) { ${selection} }`, {}, admin);
    const root = Object.values(answer.body.data ?? {})[0] as
      | { pageInfo?: { endCursor?: string | null } }
      | undefined;
    const end = root?.pageInfo?.endCursor;
    if (!end) throw new Error(`no cursor for ${list}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    known.cursors.push({ cursor: end, list });
  }
  await checkNothingQueued('before fuzzing');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

// ------------------------------------------------------------------------------------ properties

describe('fuzzing /graphql', () => {
  it('syntactically broken documents: a code, never a 5xx', async () => {
    const corpus = [
      '{ viewer { email name } }',
      'query Q($first: Int) { meetings(first: $first) { edges { cursor node { recordingId title } } } }',
      'query { meeting(recordingId: 100001) { title transcript { text speaker { displayName } } } }',
      'mutation { deleteWebhook(id: "x") { deletedId } }',
      '{ node(id: "TWVldGluZzoxMDAwMDE=") { id ... on Meeting { title } } }',
      'query A { ...F } fragment F on Query { teams { edges { node { name } } } }',
      '{ meetings(filter: { teams: ["Sales"], createdAfter: "2026-01-01T00:00:00Z" }) { edges { node { title } } } }',
      'subscription { meetingContentReady { recordingId } }',
      '{ viewer { email @skip(if: true) name @include(if: false) } }',
    ];
    const punctuation = [
      ...'{}()[]:$@!=|&".#,\n\\',
      '...',
      '"""',
      '\u0000',
      '\uFEFF',
      'é',
      '1e',
      '0x1',
      'on',
      'query',
    ];
    const spliced = fc
      .tuple(
        fc.constantFrom(...corpus),
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.nat(6),
            fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom(...punctuation)),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
      )
      .map(([text, edits]) =>
        edits.reduce((t, [at, cut, insert]) => {
          const i = at % (t.length + 1);
          return `${t.slice(0, i)}${insert}${t.slice(i + cut)}`;
        }, text),
      );
    const soup = fc
      .array(
        fc.constantFrom(
          ...punctuation,
          'mutation',
          'subscription',
          'fragment',
          'meetings',
          'viewer',
          'edges',
          'node',
          'true',
          'null',
          '1',
          '-',
          'Meeting',
          '__typename',
          '__schema',
          '$x',
          '@skip(if: true)',
        ),
        { maxLength: 60 },
      )
      .chain((tokens) => fc.constantFrom(tokens.join(' '), tokens.join('')));
    const broken = fc.oneof(
      { weight: 4, arbitrary: spliced },
      { weight: 2, arbitrary: soup },
      nastyString,
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom(
        '',
        ' ',
        '#',
        '{',
        '}',
        '{}',
        'query',
        '"',
        '"""',
        '{ a(b: "\\u{110000}") }',
        '{ a(b: 1.) }',
        `{ ${'['.repeat(3000)} }`,
        `${'{'.repeat(5000)}`,
        `{ viewer { email } } ${'#'.repeat(100_000)}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        broken,
        credential,
        fc.constantFrom('json', 'json', 'json', 'get', 'graphql'),
        async (text, headers, how) => {
          if (how === 'get') await ask('GET', `/graphql?query=${percentEncode(text)}`, headers);
          else if (how === 'graphql')
            await ask('POST', '/graphql', { ...headers, 'content-type': 'application/graphql' }, text);
          else await post(text, undefined, headers);
        },
      ),
      fuzzParameters(120),
    );
  });

  it('documents from the schema: random fields, arguments, aliases, fragments, directives, operations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.gen(),
        credential,
        acceptHeader,
        fc.constantFrom('POST', 'POST', 'POST', 'GET'),
        async (g, headers, accept, method) => {
          const doc = generateDocument(g, ['query', 'query', 'query', 'query', 'mutation', 'subscription']);
          if (method === 'GET') {
            const params = [
              `query=${percentEncode(doc.query)}`,
              `variables=${percentEncode(JSON.stringify(doc.variables))}`,
            ];
            if (doc.operationName !== undefined)
              params.push(`operationName=${percentEncode(doc.operationName)}`);
            await ask('GET', `/graphql?${params.join('&')}`, { ...headers, ...accept });
          } else {
            await post(
              doc.query,
              doc.variables,
              { ...headers, ...accept },
              { operationName: doc.operationName },
            );
          }
          if (doc.kinds.includes('mutation')) await checkNothingQueued(doc.query);
        },
      ),
      fuzzParameters(250),
    );
  });

  it('operation limits (depth, aliases, directives, tokens, cost, operations): OPERATION_LIMIT_EXCEEDED, 400', async () => {
    const team = '{ team { name } }';
    const limits = fc.oneof(
      fc.integer({ min: 1, max: 40 }).map((n) => ({
        // Aliases of __typename do not count: Armor leaves introspection alone.
        query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { email }`).join(' ')} }`,
        over: n >= 17,
        under: n <= 14,
      })),
      fc.integer({ min: 1, max: 40 }).map((n) => ({
        query: `{ ${'__typename @include(if: true) '.repeat(n)}}`,
        over: n >= 22,
        under: n <= 19,
      })),
      fc.integer({ min: 2800, max: 3200 }).map((n) => ({
        // Tokens without fields (graphql-js refuses hundreds of identical fields on its own).
        query: `query($t: [String!] = [${'"Sales" '.repeat(n)}]) { meetings(first: 1, filter: { teams: $t }) { edges { cursor } } }`,
        over: n >= 2990,
        under: n <= 2940,
      })),
      fc.integer({ min: 1, max: 30 }).map((n) => ({
        // Deeper than the schema goes: validation errors, and Armor's depth limit past 10.
        query: `{ viewer ${'{ team '.repeat(n)}{ name }${' }'.repeat(n)} }`,
        over: n >= 12,
        under: false,
      })),
      fc.integer({ min: 1, max: 30 }).map((n) => ({
        query: `{ ${'... on Query { '.repeat(n)}viewer ${team}${' }'.repeat(n)} }`,
        over: false,
        under: false,
      })),
      fc.integer({ min: 1, max: 30 }).map((n) => ({
        query: `{ __schema { types { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } } }`,
        over: false,
        under: false,
      })),
      fc.integer({ min: 1, max: 15 }).map((n) => ({
        query: `{ ${Array.from(
          { length: n },
          (_, i) =>
            `u${i}: users(first: 100) { edges { node { permissions { settingsAccess { teams { name createdAt } } viewAccess { teams { name createdAt } } } } } }`,
        ).join(' ')} }`,
        over: false,
        under: false,
      })),
      fc
        .tuple(fc.integer({ min: 1, max: 60 }), fc.option(fc.constantFrom('Q0', 'Q1', 'Q39', 'nope')))
        .map(([n, name]) => ({
          query: Array.from({ length: n }, (_, i) => `query Q${i % 40} { __typename }`).join('\n'),
          operationName: name,
          over: false,
          under: false,
        })),
      fc.constantFrom(
        {
          query: 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
          over: false,
          under: false,
        },
        { query: 'query { ...A } fragment A on Query { viewer { email } ...A }', over: false, under: false },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        limits,
        async (limit: { query: string; operationName?: string | null; over: boolean; under: boolean }) => {
          const { res, payloads, what } = await post(
            limit.query,
            undefined,
            { 'x-api-key': admin },
            {
              operationName: limit.operationName,
            },
          );
          const codes = (payloads[0]?.errors ?? []).map((e) => e.extensions?.code);
          if (limit.over) {
            expect(res.status, what).toBe(400);
            expect(codes, what).toContain('OPERATION_LIMIT_EXCEEDED');
          }
          if (limit.under) expect([res.status, codes], what).toEqual([200, []]);
        },
      ),
      fuzzParameters(40),
    );
  });

  it('random variables: wrong types, extra, missing, huge (filters of meetings, users, inputs, @skip/@include)', async () => {
    const operations: { query: string; types: Record<string, string> }[] = [
      {
        query:
          'query Meetings($filter: MeetingFilter, $first: Int, $after: String) { meetings(filter: $filter, first: $first, after: $after) { edges { cursor node { recordingId title recordedBy { email team } } } pageInfo { endCursor hasNextPage } } }',
        types: { filter: 'MeetingFilter', first: 'Int', after: 'String' },
      },
      {
        query:
          'query Users($filter: UserFilter, $first: Int) { users(filter: $filter, first: $first) { edges { node { email status team { name } } } } }',
        types: { filter: 'UserFilter', first: 'Int' },
      },
      {
        query:
          'query Members($team: String, $after: String) { teamMembers(team: $team, after: $after) { edges { node { email } } } }',
        types: { team: 'String', after: 'String' },
      },
      {
        query:
          'query One($id: Int!) { meeting(recordingId: $id) { title transcript { text } actionItems { description } } }',
        types: { id: 'Int!' },
      },
      {
        query: 'query Nodes($id: ID!, $ids: [ID!]!) { node(id: $id) { id } nodes(ids: $ids) { id } }',
        types: { id: 'ID!', ids: '[ID!]!' },
      },
      {
        query:
          'query Content($skip: Boolean!, $inc: Boolean = true) { viewer { email @skip(if: $skip) } meetings(first: 2) { edges { node { recordingId defaultSummary @include(if: $inc) { templateName } transcript @skip(if: $skip) { text } } } } }',
        types: { skip: 'Boolean!', inc: 'Boolean' },
      },
      {
        query:
          'mutation Hook($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { id url } } }',
        types: { input: 'CreateWebhookInput!' },
      },
      {
        query:
          'mutation Deliver($id: Int!, $url: String!) { deliverSummary(recordingId: $id, destinationUrl: $url) { messageId } }',
        types: { id: 'Int!', url: 'String!' },
      },
      {
        query:
          'mutation Redeliver($webhookId: ID!, $since: DateTime!) { redeliverFailedWebhookEvents(webhookId: $webhookId, since: $since) { count } }',
        types: { webhookId: 'ID!', since: 'DateTime!' },
      },
    ];
    const huge = fc.constantFrom<unknown>(
      { teams: Array.from({ length: 5000 }, (_, i) => `Team ${i}`) },
      { recordedBy: Array.from({ length: 2000 }, (_, i) => `u${i}@acme.test`) },
      'x'.repeat(200_000),
      Array.from({ length: 10_000 }, () => 'TWVldGluZzoxMDAwMDE='),
      JSON.parse(`${'{"a":'.repeat(500)}1${'}'.repeat(500)}`),
      JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...operations),
        fc.gen(),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': admin }) },
          credential,
        ),
        async (operation, g, headers) => {
          const variables: Record<string, unknown> = Object.create(null);
          for (const [name, typeText] of Object.entries(operation.types)) {
            const type = typeFromAST(schema, parseType(typeText)) as GraphQLInputType;
            const roll = upTo(g, 19);
            if (roll < 13)
              variables[name] = toJson(valueFor(g, type, name === 'url' ? 'destinationUrl' : name));
            else if (roll < 15)
              continue; // missing
            else if (roll < 18) variables[name] = draw(g, fc.jsonValue({ maxDepth: 3 }).filter(staysLocal));
            else variables[name] = draw(g, huge);
          }
          if (oneIn(g, 5))
            variables[draw(g, fc.constantFrom('extra', '__proto__', 'filter2', ''))] = draw(
              g,
              fc.jsonValue(),
            );
          const { res, payloads, what } = await post(operation.query, variables, headers);
          if (operation.query.startsWith('mutation')) await checkNothingQueued(what);
          // @skip/@include decide what a connected app may list: nothing refused once content is left out.
          if (
            operation.query.includes('Content(') &&
            headers.authorization === `Bearer ${appToken}` &&
            variables.skip === true &&
            variables.inc === false
          )
            expect([res.status, payloads[0]?.errors], what).toEqual([200, undefined]);
        },
      ),
      fuzzParameters(130),
    );
  });

  it('random and forged `after` cursors on every list: a page or BAD_USER_INPUT', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(cursorLists)),
        fc.oneof(
          cursor.map((c) => ({ cursor: c, list: '' })),
          fc.constant(known).chain((k) => fc.constantFrom(...k.cursors)),
        ),
        fc.boolean(),
        async (list, given, asVariable) => {
          const selection = cursorLists[list]!;
          const query = asVariable
            ? `query($after: String) { ${selection} }`
            : `{ ${selection.replace('$after', JSON.stringify(given.cursor))} }`;
          const { res, payloads, what } = await post(query, asVariable ? { after: given.cursor } : undefined);
          expect([200, 400], what).toContain(res.status);
          // Inline, a cursor with a lone surrogate is not even a GraphQL string.
          const codes = asVariable ? ['BAD_USER_INPUT'] : ['BAD_USER_INPUT', 'GRAPHQL_PARSE_FAILED'];
          for (const error of payloads[0]?.errors ?? [])
            expect(codes, what).toContain(error.extensions?.code);
          // A cursor of this very list (and filter) is always taken.
          if (given.list === list) expect(res.status, what).toBe(200);
        },
      ),
      fuzzParameters(100),
    );
  });

  it('node(id:) and nodes(ids:) with random and forged global ids: null or BAD_USER_INPUT, as meeting() says', async () => {
    await fc.assert(
      fc.asyncProperty(
        globalIdParts,
        fc.array(ids, { maxLength: 6 }),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': admin }) },
          credential,
        ),
        async (parts, list, headers) => {
          const id = encodeGlobalId(parts);
          const [type, raw, how] = parts;
          const n = Number(raw);
          const canonical =
            type === 'Meeting' && how !== 'plain' && String(n) === raw && n >= 1 && n <= 2 ** 31 - 1;
          const { res, payloads, what } = await post(
            'query($id: ID!, $n: Int!) { node(id: $id) { id __typename ... on Meeting { recordingId } } meeting(recordingId: $n) { recordingId } }',
            { id, n: canonical ? n : 100001 },
            headers,
          );
          const data = payloads[0]?.data as
            | { node: { id: string; recordingId: number } | null; meeting: { recordingId: number } | null }
            | undefined;
          if (data?.node)
            expect(data.node.id, what).toBe(
              Buffer.from(`Meeting:${data.node.recordingId}`).toString('base64'),
            );
          // The node of a meeting is there exactly when meeting() shows it to this viewer.
          if (canonical && res.status === 200)
            expect(data?.node?.recordingId ?? null, what).toBe(data?.meeting?.recordingId ?? null);
          await post(
            'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Meeting { title } } }',
            { ids: list },
            headers,
          );
        },
      ),
      fuzzParameters(50),
    );
  });

  it('transport: methods, content types, bodies, query parameters, accept and other headers', async () => {
    const documents = fc.oneof(
      fc.constantFrom(
        '{ viewer { email } }',
        'query A { viewer { email } } query B { teams { edges { node { name } } } }',
        'mutation { deleteWebhook(id: "x") { deletedId } }',
        'subscription { meetingContentReady { recordingId } }',
        'query($n: Int!) { meeting(recordingId: $n) { title } }',
        '{ meetings(first: 1) { edges { node { transcript { text } defaultSummary { markdownFormatted } } } } }',
        '{ __schema { queryType { name } } }',
        '{ viewer { ',
      ),
      nastyString,
    );
    const params = fc.record(
      {
        query: fc.oneof({ weight: 4, arbitrary: documents }, fc.jsonValue({ maxDepth: 1 })),
        variables: fc.oneof(
          fc.constantFrom<unknown>({ n: 100001 }, { n: '100001' }, {}, null, [], 'x', '{"n":1}'),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        operationName: fc.oneof(fc.constantFrom<unknown>('A', 'B', '', null), fc.jsonValue({ maxDepth: 1 })),
        extensions: fc.oneof(
          fc.constantFrom<unknown>({ persistedQuery: { version: 1, sha256Hash: 'abc' } }, {}, null, 'x', []),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        extra: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    );
    const asParam = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
    const formOf = (p: Record<string, unknown>) =>
      Object.entries(p)
        .map(([k, v]) => `${k}=${percentEncode(asParam(v) ?? '')}`)
        .join('&');
    const body = fc.oneof(
      { weight: 4, arbitrary: params.map((p) => JSON.stringify(p)) },
      fc.array(params, { maxLength: 3 }).map((batch) => JSON.stringify(batch)),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      params.map(formOf),
      params.map(
        (p) =>
          `--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify(p)}\r\n--x\r\nContent-Disposition: form-data; name="map"\r\n\r\n{}\r\n--x--\r\n`,
      ),
      documents,
      nastyString,
      fc.constantFrom(
        '',
        '{',
        '[',
        'null',
        '{"query":"{ viewer { email } }"}{"a":1}',
        '\uFEFF{"query":"{__typename}"}',
      ),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/graphql',
      'application/graphql-response+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'multipart/form-data',
      'text/plain',
      'APPLICATION/JSON',
      'application/json, text/plain',
      '',
    );
    const query = params.map((p) =>
      Object.entries(p)
        .map(([k, v]) => `${k}=${percentEncode(asParam(v) ?? '')}`)
        .join('&'),
    );
    const accept = fc.oneof(
      fc.constantFrom(
        '',
        'application/json',
        'application/graphql-response+json',
        'application/graphql-response+json, application/json;q=0.9',
        'text/event-stream',
        'multipart/mixed',
        'multipart/mixed; deferSpec=20220824',
        'text/html',
        'text/html, application/json',
        '*/*',
        'application/*',
        'application/xml',
        'text/plain',
        'image/png',
        ';;;',
        'application/json; charset=latin1',
      ),
      nastyString.filter(headerSafe),
    );
    const extraHeaders = fc.record(
      {
        'x-request-id': nastyString.filter(headerSafe),
        origin: fc.constantFrom('http://evil.test', 'null', ''),
        'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x'),
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*'),
        'x-forwarded-for': nastyString.filter(headerSafe),
      },
      { requiredKeys: [] },
    );
    const method = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('GET', 'POST') },
      fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
    );
    await fc.assert(
      fc.asyncProperty(
        method,
        query,
        body,
        contentType,
        accept,
        credential,
        extraHeaders,
        async (m, search, text, type, acceptValue, auth, extra) => {
          const headers: Record<string, string> = { ...auth, ...extra };
          if (acceptValue) headers.accept = acceptValue;
          if (m === 'GET' || m === 'HEAD') await ask(m, `/graphql?${search}`, headers);
          else await ask(m, '/graphql', type ? { ...headers, 'content-type': type } : headers, text);
        },
      ),
      fuzzParameters(200),
    );
  });

  it('mutations with random input: private destinations refused, nothing queued, unknown ids NOT_FOUND', async () => {
    const targeted = fc.oneof(
      fc
        .record(
          {
            destinationUrl: fc.oneof({ weight: 3, arbitrary: privateUrl }, localishUrl),
            triggeredFor: fc.oneof(
              fc.subarray([
                'MY_RECORDINGS',
                'SHARED_EXTERNAL_RECORDINGS',
                'MY_SHARED_WITH_TEAM_RECORDINGS',
                'SHARED_TEAM_RECORDINGS',
              ]),
              fc.constantFrom<unknown>(['my_recordings'], 'MY_RECORDINGS', [null], ['NOPE']),
            ),
            includeTranscript: fc.oneof(fc.boolean(), fc.constantFrom<unknown>(null, 'true', 1)),
            includeSummary: fc.boolean(),
            includeActionItems: fc.boolean(),
            includeCrmMatches: fc.boolean(),
            extra: fc.jsonValue({ maxDepth: 1 }),
          },
          { requiredKeys: ['destinationUrl', 'triggeredFor', 'includeSummary'] },
        )
        .map((input) => ({
          query:
            'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { id url } } }',
          variables: { input } as Record<string, unknown>,
          service: false,
        })),
      fc
        .tuple(
          fc.constantFrom('deliverTranscript', 'deliverSummary'),
          recordingIds,
          fc.oneof({ weight: 3, arbitrary: privateUrl }, localishUrl),
        )
        .map(([field, id, url]) => ({
          query: `mutation($id: Int!, $url: String!) { ${field}(recordingId: $id, destinationUrl: $url) { messageId destinationUrl } }`,
          variables: { id, url } as Record<string, unknown>,
          service: false,
        })),
      fc
        .tuple(
          fc.constantFrom(
            'deleteWebhook(id: $id) { deletedId }',
            'rotateWebhookSecret(id: $id) { secret previousSecretExpiresAt }',
            'enableWebhook(id: $id) { id enabled }',
            'redeliverWebhookEvent(webhookId: $id, eventId: $event) { id status }',
            'redeliverFailedWebhookEvents(webhookId: $id, since: $since) { count }',
          ),
          ids,
          fc.oneof(ids, fc.constantFrom('msg_x')),
          dates,
        )
        .map(([selection, id, event, since]) => {
          const declared = [
            '$id: ID!',
            selection.includes('$event') && '$event: ID!',
            selection.includes('$since') && '$since: DateTime!',
          ];
          return {
            query: `mutation(${declared.filter(Boolean).join(', ')}) { ${selection} }`,
            variables: {
              id,
              ...(selection.includes('$event') ? { event } : {}),
              ...(selection.includes('$since') ? { since } : {}),
            } as Record<string, unknown>,
            service: false,
          };
        }),
      recording.map((r) => ({
        query:
          'mutation($r: String!) { ingestRecording(recording: $r) { recordingId contentReady becameReady eventsQueued } }',
        variables: { r } as Record<string, unknown>,
        service: true,
      })),
    );
    const generated = fc.gen().map((g) => {
      const doc = generateDocument(g, ['mutation']);
      return { query: doc.query, variables: doc.variables, service: false };
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: targeted }, generated),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': admin }) },
          credential,
        ),
        async (mutation, auth) => {
          const headers = mutation.service ? { authorization: `Bearer ${serviceToken}` } : auth;
          const { res, payloads, what } = await post(mutation.query, mutation.variables, headers);
          await checkNothingQueued(what);
          const data = payloads[0]?.data as Record<string, unknown> | null | undefined;
          if (
            /createWebhook|deliverTranscript|deliverSummary/.test(mutation.query) &&
            mutation.query.startsWith('mutation($')
          )
            expect(res.status, `accepted a private destination: ${what}`).toBeGreaterThanOrEqual(400);
          if (mutation.service && res.status === 200) {
            const sent = JSON.parse(String(mutation.variables.r)) as { recording_id?: unknown };
            expect((data?.ingestRecording as { recordingId?: number })?.recordingId, what).toBe(
              sent.recording_id,
            );
          }
        },
      ),
      fuzzParameters(100),
    );
  });

  it('subscriptions over server-sent events (and refused media types): a stream or a coded error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.gen(),
        credential,
        fc.constantFrom('text/event-stream', 'text/event-stream', 'application/json', 'multipart/mixed', ''),
        fc.constantFrom('POST', 'POST', 'GET'),
        async (g, auth, accept, method) => {
          const doc: DocState = { g, budget: 8, counter: 0, fragments: [], variables: {} };
          const meeting = schema.getType('Meeting') as GraphQLCompositeType;
          const query = `subscription { meetingContentReady ${selectionSet(doc, undefined, meeting, 2)} } ${doc.fragments.join(' ')}`;
          const headers: Record<string, string> = accept ? { ...auth, accept } : auth;
          if (method === 'GET') await ask('GET', `/graphql?query=${percentEncode(query)}`, headers);
          else await post(query, undefined, headers);
        },
      ),
      fuzzParameters(20),
    );
  });

  it('answers the inputs this fuzzer once found failing with a coded 4xx', async () => {
    const viewer = '%7B%20viewer%20%7B%20email%20%7D%20%7D';
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      // A bare SyntaxError from Yoga's parameter parsing was masked as a 500.
      ['GET', `/graphql?query=${viewer}&variables=%7B`, {}, undefined, 400],
      ['GET', `/graphql?query=${viewer}&extensions=x`, {}, undefined, 400],
      [
        'POST',
        '/graphql',
        { 'content-type': 'application/x-www-form-urlencoded' },
        `query=${viewer}&variables=x`,
        400,
      ],
      // Empty 415 and 406 answers.
      ['POST', '/graphql', { 'content-type': 'text/plain' }, '{ viewer { email } }', 415],
      [
        'POST',
        '/graphql',
        { 'content-type': 'application/json', accept: 'application/xml' },
        '{"query":"{ __typename }"}',
        406,
      ],
      // As GraphQL over HTTP prescribes (docs/api/graphql.md): 200 for an invalid document to application/json only.
      [
        'POST',
        '/graphql',
        { 'content-type': 'application/json', accept: 'application/json' },
        '{"query":"{ nope }"}',
        200,
      ],
      ['POST', '/graphql', { 'content-type': 'application/json' }, '{"query":"{ nope }"}', 200],
      [
        'POST',
        '/graphql',
        { 'content-type': 'application/json', accept: defaultAccept },
        '{"query":"{ nope }"}',
        400,
      ],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const { res, what } = await ask(method, path, { 'x-api-key': admin, ...headers }, body);
      expect(res.status, what).toBe(status);
    }
    // A recording id past 2^31 - 1 was stored, then every list showing it failed with a 500.
    const recording = JSON.stringify({ ...demoMeetings[0], recording_id: 2 ** 31 });
    const { res, payloads, what } = await post(
      'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
      { r: recording },
      { authorization: `Bearer ${serviceToken}` },
    );
    expect([res.status, payloads[0]?.errors?.[0]?.extensions?.code], what).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('is still healthy afterwards, with nothing queued', async () => {
    await checkHealthy(app, admin);
    await checkNothingQueued('after fuzzing');
    // One line for the record: how many requests this file sent.
    process.stdout.write(`GraphQL fuzzing: ${counted} requests\n`);
    expect(counted).toBeGreaterThan(1000);
  });
});
