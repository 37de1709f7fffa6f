/**
 * Runs one unified test file ("Executing a Test File" and "Executing a Test" in the format):
 * decides which tests may run, then for each sets up initialData, creates its entities, runs its
 * operations with their expectations, and checks the events and the collections' outcome.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { EJSON } from 'bson';
import { ClientSession, type Document, type MongoClient, MongoServerError } from 'mongodb';
import { EntityMap, unsupportedEntity } from './entities.js';
import type { CollectionData, Operation, UnifiedFile, UnifiedTest } from './format.js';
import {
  assertErrorMatches,
  assertEventsMatch,
  assertMatches,
  describe,
  describeError,
  Mismatch,
} from './matcher.js';
import { CURSOR_OPERATIONS, OPERATIONS, partialResultOf, RUNNER_OPERATIONS } from './operations.js';
import {
  nodeDriverDeviation,
  standaloneLimitation,
  unmetRequirements,
  unsupportedSchema,
} from './requirements.js';
import { openServer, type ServerUnderTest } from './server.js';

export interface TestResult {
  file: string;
  test: string;
  status: 'passed' | 'failed' | 'skipped';
  reason?: string;
}

export interface RunOptions {
  /** Evaluate runOnRequirements as for this server version instead of the one the server reports. */
  serverVersion?: string;
  timeoutMs: number;
}

export async function runFile(file: string, options: RunOptions): Promise<TestResult[]> {
  // Relaxed Extended JSON: plain numbers stay JavaScript numbers, which the driver takes everywhere.
  const suite = EJSON.parse(await readFile(file, 'utf8'), { relaxed: true }) as UnifiedFile;
  const outcome = (test: UnifiedTest, status: TestResult['status'], reason?: string): TestResult => ({
    file,
    test: test.description,
    status,
    ...(reason !== undefined && { reason }),
  });
  const unrunnable = unsupportedSchema(suite.schemaVersion) ?? unsupportedEntity(suite.createEntities);
  if (unrunnable) return suite.tests.map((test) => outcome(test, 'skipped', unrunnable));

  const server = await openServer(options.serverVersion);
  try {
    const fileUnmet = unmetRequirements(suite.runOnRequirements, server.version);
    const results: TestResult[] = [];
    for (const test of suite.tests) {
      const skip = fileUnmet ?? whySkipped(test, server.version);
      if (skip) {
        results.push(outcome(test, 'skipped', skip));
        continue;
      }
      const failure = await runWithTimeout(suite, test, server, options.timeoutMs);
      results.push(failure === undefined ? outcome(test, 'passed') : outcome(test, 'failed', failure));
    }
    return results;
  } finally {
    await server.close();
  }
}

function whySkipped(test: UnifiedTest, serverVersion: string): string | undefined {
  const unimplemented = test.operations.find(
    ({ name, object }) => !Object.hasOwn(object === 'testRunner' ? RUNNER_OPERATIONS : OPERATIONS, name),
  );
  const unobserved = test.expectEvents?.find(({ eventType }) => (eventType ?? 'command') !== 'command');
  return (
    test.skipReason ??
    unmetRequirements(test.runOnRequirements, serverVersion) ??
    standaloneLimitation(test) ??
    nodeDriverDeviation(test) ??
    (unimplemented && `operation ${unimplemented.name} is not implemented by this runner`) ??
    (unobserved && `${unobserved.eventType} events are not implemented by this runner`)
  );
}

/** The test's failure as one line, or undefined when it passed; a test that hangs fails after `timeoutMs`. */
async function runWithTimeout(
  suite: UnifiedFile,
  test: UnifiedTest,
  server: ServerUnderTest,
  timeoutMs: number,
): Promise<string | undefined> {
  const entities = new EntityMap(server.uri);
  const timeout = new AbortController();
  const run = runTest(suite, test, server, entities);
  try {
    await Promise.race([
      run,
      delay(timeoutMs, undefined, { signal: timeout.signal }).then(() => {
        throw new Error(`timed out after ${timeoutMs} ms`);
      }),
    ]);
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
  } finally {
    timeout.abort();
    run.catch(() => {}); // after a timeout it ends on its own, failing on closed clients
    // Closing the test's clients also stops a hung operation; it must not hang the run either.
    await Promise.race([entities.close(), delay(2000)]);
  }
}

async function runTest(
  suite: UnifiedFile,
  test: UnifiedTest,
  server: ServerUnderTest,
  entities: EntityMap,
): Promise<void> {
  const lookup = (id: string) => entities.get(id);
  await loadCollections(server.internal, suite.initialData ?? []).catch((error: unknown) => {
    throw new Error(`initialData: ${describeError(error)}`);
  });
  entities.create(suite.createEntities ?? []);
  for (const [index, operation] of test.operations.entries()) {
    try {
      await runOperation(operation, entities, server.internal);
    } catch (error) {
      const detail = error instanceof Mismatch ? error.message : `failed: ${describeError(error)}`;
      throw new Error(`operations[${index}] ${operation.name} ${detail}`);
    }
  }
  entities.stopObserving();
  for (const expected of test.expectEvents ?? []) {
    assertEventsMatch(expected, entities.eventsOf(expected.client), lookup);
  }
  for (const { databaseName, collectionName, documents } of test.outcome ?? []) {
    // Outcomes compare whole documents (no extra fields), in _id order, as the format says.
    const actual = await server.internal
      .db(databaseName)
      .collection(collectionName)
      .find({}, { sort: { _id: 1 }, readConcern: { level: 'local' } })
      .toArray();
    assertMatches(documents, actual, lookup, `outcome(${databaseName}.${collectionName})`, 'nested');
  }
}

/** initialData: each collection dropped, created, filled, with a majority write concern. */
async function loadCollections(internal: MongoClient, collections: CollectionData[]): Promise<void> {
  const majority = { writeConcern: { w: 'majority' } } as const;
  for (const { databaseName, collectionName, createOptions, documents } of collections) {
    const db = internal.db(databaseName);
    // The format also drops Queryable Encryption's enxcol_ collections, which no test here creates.
    await db.dropCollection(collectionName, majority).catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === 26)) throw error; // NamespaceNotFound
    });
    if (createOptions || documents.length === 0)
      await db.createCollection(collectionName, { ...createOptions, ...majority });
    if (documents.length > 0) await db.collection(collectionName).insertMany(documents, majority);
  }
}

async function runOperation(operation: Operation, entities: EntityMap, internal: MongoClient): Promise<void> {
  const { name, object, expectError } = operation;
  const args: Document = { ...operation.arguments };
  if (object === 'testRunner') return RUNNER_OPERATIONS[name]?.(args, internal);
  if (typeof args.session === 'string') args.session = entities.get(args.session, ClientSession);

  let result: unknown;
  let error: unknown;
  let failed = false;
  try {
    result = await OPERATIONS[name]?.(entities.get(object), args);
  } catch (caught) {
    [error, failed] = [caught, true];
  }
  if (operation.ignoreResultAndError) return;
  const lookup = (id: string) => entities.get(id);
  if (expectError) {
    if (!failed) throw new Mismatch('error', `expected an error, got result ${describe(result)}`);
    return assertErrorMatches(expectError, error, partialResultOf(error), lookup);
  }
  if (failed) throw error;
  if ('expectResult' in operation) {
    const scope = CURSOR_OPERATIONS.has(name) ? 'root-elements' : 'root';
    assertMatches(operation.expectResult, result, lookup, 'result', scope);
  }
  if (operation.saveResultAsEntity) entities.add(operation.saveResultAsEntity, result);
}
