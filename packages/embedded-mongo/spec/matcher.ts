/**
 * The format's rules for comparing what a test expects with what the driver returned
 * ("Evaluating Matches"): special `$$` operators, numbers compared by value whatever their BSON
 * type, and extra fields allowed in root documents only. Also the assertions on errors
 * (expectError) and on observed command events (expectEvents).
 */
import { EJSON } from 'bson';
import {
  ClientSession,
  type Document,
  MongoBulkWriteError,
  MongoClientBulkWriteError,
  MongoError,
  MongoServerError,
} from 'mongodb';
import type { ExpectedError, ExpectedEventsForClient } from './format.js';

/** A failed assertion: where in the value, and what differed. */
export class Mismatch extends Error {
  constructor(path: string, detail: string) {
    super(`${path}: ${detail}`);
  }
}

/** Looks entities up for `$$matchesEntity` and `$$sessionLsid`. */
export type EntityLookup = (id: string) => unknown;

/**
 * Whether a document may have fields the expectation does not name: a root document may (a
 * command, a reply, an operation's result), and so may each document of a cursor's result
 * (`root-elements`); nested documents may not.
 */
export type Scope = 'root' | 'nested' | 'root-elements';

/** Throws a Mismatch unless `actual` matches `expected` by the format's rules. */
export function assertMatches(
  expected: unknown,
  actual: unknown,
  lookup: EntityLookup,
  path: string,
  scope: Scope = 'root',
): void {
  // The driver keeps the order of sort and index keys in Maps; the format reads them as documents.
  const value = actual instanceof Map ? Object.fromEntries(actual) : actual;
  const operator = specialOperator(expected);
  if (operator) {
    matchOperator(operator, (expected as Document)[operator], value, lookup, path, scope);
  } else if (Array.isArray(expected)) {
    matchArray(expected, value, lookup, path, scope === 'root-elements' ? 'root' : 'nested');
  } else if (isDocument(expected)) {
    matchDocument(expected, value, lookup, path, scope === 'root');
  } else if (!sameValue(expected, value)) {
    throw new Mismatch(path, `expected ${describe(expected)}, got ${describe(value)}`);
  }
}

function matchArray(expected: unknown[], actual: unknown, lookup: EntityLookup, path: string, scope: Scope) {
  if (!Array.isArray(actual)) throw new Mismatch(path, `expected an array, got ${describe(actual)}`);
  if (actual.length !== expected.length) {
    throw new Mismatch(
      path,
      `expected ${expected.length} elements, got ${actual.length}: ${describe(actual)}`,
    );
  }
  for (const [i, element] of expected.entries())
    assertMatches(element, actual[i], lookup, `${path}[${i}]`, scope);
}

function matchDocument(
  expected: Document,
  actual: unknown,
  lookup: EntityLookup,
  path: string,
  extraFieldsAllowed: boolean,
): void {
  if (!isDocument(actual)) throw new Mismatch(path, `expected a document, got ${describe(actual)}`);
  for (const [key, value] of Object.entries(expected)) {
    const keyPath = `${path}.${key}`;
    const present = actual[key] !== undefined;
    const operator = specialOperator(value);
    // The two operators about a field's presence rather than its value.
    if (operator === '$$exists') {
      if (present !== value.$$exists) {
        throw new Mismatch(keyPath, present ? `expected no field, got ${describe(actual[key])}` : 'missing');
      }
      continue;
    }
    if (operator === '$$unsetOrMatches' && !present) continue;
    if (!present) throw new Mismatch(keyPath, `missing (expected ${describe(value)})`);
    assertMatches(value, actual[key], lookup, keyPath, 'nested');
  }
  if (extraFieldsAllowed) return;
  const extra = Object.keys(actual).filter((key) => !(key in expected) && actual[key] !== undefined);
  if (extra.length > 0)
    throw new Mismatch(path, `unexpected field(s) ${extra.join(', ')} in ${describe(actual)}`);
}

function matchOperator(
  operator: string,
  argument: unknown,
  actual: unknown,
  lookup: EntityLookup,
  path: string,
  scope: Scope,
): void {
  switch (operator) {
    case '$$unsetOrMatches':
      if (actual !== undefined) assertMatches(argument, actual, lookup, path, scope);
      break;
    case '$$type': {
      const wanted = [argument].flat() as string[];
      const types = bsonTypesOf(actual);
      if (actual === undefined || !wanted.some((type) => types.includes(type))) {
        throw new Mismatch(path, `expected type ${wanted.join('|')}, got ${describe(actual)} (${types[0]})`);
      }
      break;
    }
    case '$$matchesEntity':
      assertMatches(lookup(String(argument)), actual, lookup, path, scope);
      break;
    case '$$sessionLsid': {
      const session = lookup(String(argument));
      if (!(session instanceof ClientSession)) throw new Error(`entity ${argument} is not a session`);
      assertMatches(session.id, actual, lookup, path, 'nested');
      break;
    }
    case '$$lte': {
      const [limit, value] = [numericValue(argument), numericValue(actual)];
      if (limit === undefined || value === undefined || value > limit) {
        throw new Mismatch(path, `expected a number <= ${describe(argument)}, got ${describe(actual)}`);
      }
      break;
    }
    case '$$matchAsDocument':
      if (typeof actual !== 'string')
        throw new Mismatch(path, `expected Extended JSON, got ${describe(actual)}`);
      assertMatches(argument, EJSON.parse(actual, { relaxed: true }), lookup, path, 'nested');
      break;
    case '$$matchAsRoot':
      assertMatches(argument, actual, lookup, path, 'root');
      break;
    default:
      // $$exists is handled with the field it is about; anything else is beyond these suites.
      throw new Error(`${path}: special operator ${operator} is not supported here by this runner`);
  }
}

/** Asserts the error an operation raised against the test's expectError. */
export function assertErrorMatches(
  expected: ExpectedError,
  error: unknown,
  partialResult: unknown,
  lookup: EntityLookup,
): void {
  try {
    checkError(expected, error, partialResult, lookup);
  } catch (mismatch) {
    // Whatever differed, the error itself is what explains it.
    if (mismatch instanceof Mismatch) mismatch.message += `; the error: ${describeError(error)}`;
    throw mismatch;
  }
}

function checkError(
  expected: ExpectedError,
  error: unknown,
  partialResult: unknown,
  lookup: EntityLookup,
): void {
  const { isClientError, errorContains, errorCode, errorCodeName, errorResponse, writeErrors } = expected;
  if (isClientError !== undefined && isClientError !== !(error instanceof MongoServerError)) {
    throw new Mismatch('error', `expected a ${isClientError ? 'client' : 'server'} error`);
  }
  const related = serverErrorsOf(error);
  if (errorContains !== undefined) {
    const messages = [
      error instanceof Error ? error.message : String(error),
      ...related.map((e) => e.errmsg ?? e.message),
    ];
    if (!messages.some((message) => String(message).toLowerCase().includes(errorContains.toLowerCase()))) {
      throw new Mismatch('error.message', `expected to contain "${errorContains}"`);
    }
  }
  if (errorCode !== undefined && !related.some((e) => e.code === errorCode)) {
    throw new Mismatch('error.code', `expected ${errorCode}`);
  }
  if (
    errorCodeName !== undefined &&
    !related.some((e) => String(e.codeName).toLowerCase() === errorCodeName.toLowerCase())
  ) {
    throw new Mismatch('error.codeName', `expected ${errorCodeName}`);
  }
  const hasLabel = (label: string) => error instanceof MongoError && error.hasErrorLabel(label);
  const missingLabel = expected.errorLabelsContain?.find((label) => !hasLabel(label));
  if (missingLabel) throw new Mismatch('error.errorLabels', `expected label ${missingLabel}`);
  const unwantedLabel = expected.errorLabelsOmit?.find(hasLabel);
  if (unwantedLabel) throw new Mismatch('error.errorLabels', `expected no label ${unwantedLabel}`);
  if (errorResponse !== undefined) {
    const response = error instanceof MongoServerError ? error.errorResponse : undefined;
    assertMatches(errorResponse, response, lookup, 'error.errorResponse');
  }
  if (writeErrors !== undefined) {
    const actual =
      error instanceof MongoClientBulkWriteError ? Object.fromEntries(error.writeErrors) : undefined;
    // Each write error is a root document, but no index may be missing or extra.
    assertMatches(Object.keys(writeErrors), Object.keys(actual ?? {}), lookup, 'error.writeErrors(indexes)');
    for (const [index, writeError] of Object.entries(writeErrors)) {
      assertMatches(writeError, actual?.[index], lookup, `error.writeErrors[${index}]`);
    }
  }
  if (expected.writeConcernErrors !== undefined) {
    const actual = error instanceof MongoClientBulkWriteError ? error.writeConcernErrors : undefined;
    assertMatches(expected.writeConcernErrors, actual, lookup, 'error.writeConcernErrors', 'root-elements');
  }
  if ('expectResult' in expected) assertMatches(expected.expectResult, partialResult, lookup, 'error.result');
}

/**
 * The server's errors an error carries. A bulk write error aggregates several (its write errors,
 * its write concern error, for a client bulk write the top-level error as its cause), and the
 * format counts a match with any of them.
 */
function serverErrorsOf(error: unknown): Document[] {
  if (!(error instanceof MongoServerError)) return [];
  const related: Document[] = [error];
  if (error instanceof MongoBulkWriteError) related.push(...[error.writeErrors].flat(), error.err ?? {});
  if (error instanceof MongoClientBulkWriteError) {
    related.push(...error.writeErrors.values(), ...error.writeConcernErrors, error.cause ?? {});
  }
  return related;
}

/** An event the runner observed on a client entity (command monitoring). */
export interface ObservedEvent {
  type: 'commandStartedEvent' | 'commandSucceededEvent' | 'commandFailedEvent';
  commandName: string;
  databaseName: string;
  command?: Document;
  reply?: Document;
}

/** Asserts a client's observed events against the test's expectEvents for it, in order. */
export function assertEventsMatch(
  expected: ExpectedEventsForClient,
  observed: ObservedEvent[],
  lookup: EntityLookup,
): void {
  const path = `events(${expected.client})`;
  const { events } = expected;
  const countDiffers = expected.ignoreExtraEvents
    ? observed.length < events.length
    : observed.length !== events.length;
  if (countDiffers) {
    const seen = observed.map((e) => `${e.commandName}:${e.type.replace(/^command|Event$/g, '')}`).join(', ');
    throw new Mismatch(path, `expected ${events.length} events, got ${observed.length} (${seen})`);
  }
  events.forEach((event, i) => {
    const [type, assertions] = Object.entries(event)[0] as [string, Document];
    const actual = observed[i] as ObservedEvent;
    const at = `${path}[${i}]`;
    if (actual.type !== type)
      throw new Mismatch(at, `expected ${type}, got ${actual.type} for ${actual.commandName}`);
    for (const [field, value] of Object.entries(assertions)) {
      if (field === 'command' || field === 'reply') {
        assertMatches(value, actual[field], lookup, `${at}.${field}`);
      } else if (field === 'commandName' || field === 'databaseName') {
        if (actual[field] !== value)
          throw new Mismatch(`${at}.${field}`, `expected ${value}, got ${actual[field]}`);
      } else {
        throw new Error(`${at}: event assertion ${field} is not supported by this runner`);
      }
    }
  });
}

/** The special operator an expected value is, if it is one: a document whose only key starts with $$. */
function specialOperator(value: unknown): string | undefined {
  if (!isDocument(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0]?.startsWith('$$') ? keys[0] : undefined;
}

/** A plain document, not an array, a date or a BSON value such as an ObjectId. */
function isDocument(value: unknown): value is Document {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !('_bsontype' in value)
  );
}

/** A number of any BSON numeric type but Decimal128 (which the format compares exactly). */
function numericValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object' && value !== null && '_bsontype' in value) {
    const { _bsontype } = value as { _bsontype: string };
    if (_bsontype === 'Int32' || _bsontype === 'Double' || _bsontype === 'Long') return Number(value);
  }
  return undefined;
}

function sameValue(expected: unknown, actual: unknown): boolean {
  const [left, right] = [numericValue(expected), numericValue(actual)];
  if (left !== undefined || right !== undefined) {
    return left === right || (Number.isNaN(left) && Number.isNaN(right));
  }
  if (expected instanceof Date || actual instanceof Date) {
    return expected instanceof Date && actual instanceof Date && expected.getTime() === actual.getTime();
  }
  if (typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null) {
    return ejson(expected, false) === ejson(actual, false);
  }
  return expected === actual;
}

/**
 * The names `$$type` accepts for a value. The driver hands int32, int64 (when it fits) and double
 * alike to JavaScript as numbers, so an integral number answers to all three.
 */
function bsonTypesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (typeof value === 'number')
    return Number.isInteger(value) ? ['int', 'long', 'double', 'number'] : ['double', 'number'];
  if (typeof value === 'string') return ['string'];
  if (typeof value === 'boolean') return ['bool'];
  if (typeof value === 'bigint') return ['long', 'number'];
  if (Array.isArray(value)) return ['array'];
  if (value instanceof Date) return ['date'];
  if (value instanceof RegExp) return ['regex'];
  if (typeof value === 'object' && '_bsontype' in value) {
    const bsonType = BSON_TYPE_NAMES[(value as { _bsontype: string })._bsontype] ?? 'unknown';
    return ['int', 'long', 'double', 'decimal'].includes(bsonType) ? [bsonType, 'number'] : [bsonType];
  }
  return typeof value === 'object' ? ['object'] : [typeof value];
}

const BSON_TYPE_NAMES: Record<string, string> = {
  ObjectId: 'objectId',
  Int32: 'int',
  Double: 'double',
  Long: 'long',
  Decimal128: 'decimal',
  Binary: 'binData',
  Timestamp: 'timestamp',
  BSONRegExp: 'regex',
  BSONSymbol: 'symbol',
  Code: 'javascript',
  MinKey: 'minKey',
  MaxKey: 'maxKey',
  DBRef: 'object',
};

/** Extended JSON of a value, for comparing BSON values (canonical) or showing them (relaxed). */
function ejson(value: unknown, relaxed: boolean): string {
  try {
    return EJSON.stringify(value, { relaxed });
  } catch {
    return String(value);
  }
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = ejson(value, true);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return describe(error);
  const { code, codeName } = error as { code?: unknown; codeName?: unknown };
  const detail = [code, codeName].filter((part) => part !== undefined).join(' ');
  // A client bulk write error wraps the server's top-level error as its cause.
  const cause = error.cause === undefined ? '' : `; cause: ${describeError(error.cause)}`;
  return `${error.name}${detail ? ` (${detail})` : ''}: ${error.message}${cause}`;
}
