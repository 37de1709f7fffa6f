// The fields each command accepts, as mongod's IDL command definitions: a field not listed is
// refused with 40415 ("BSON field 'find.projectoin' is an unknown field."), so a typo never
// silently changes what a command does. Commands not listed here are not checked.
import { CommandError, ErrorCode } from '../errors.js';
import { type Document, isPlainObject } from '../values.js';

/** Arguments every command accepts (mongod's generic_argument.idl): what drivers attach. */
export const GENERIC_ARGUMENTS: ReadonlySet<string> = new Set([
  '$db',
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'stmtId',
  '$clusterTime',
  '$readPreference',
  '$audit',
  '$client',
  'readConcern',
  'writeConcern',
  'comment',
  'maxTimeMS',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'clientOperationKey',
  'mayBypassWriteBlocking',
]);

const FIELDS: Record<string, string[]> = {
  find: [
    'filter',
    'projection',
    'sort',
    'hint',
    'skip',
    'limit',
    'batchSize',
    'singleBatch',
    'max',
    'min',
    'returnKey',
    'showRecordId',
    'tailable',
    'oplogReplay',
    'noCursorTimeout',
    'awaitData',
    'allowPartialResults',
    'collation',
    'allowDiskUse',
    'let',
    'term',
    'readOnce',
    'allowSpeculativeMajorityRead',
    '$_requestResumeToken',
    '$_resumeAfter',
  ],
  getMore: ['collection', 'batchSize', 'term', 'lastKnownCommittedOpTime'],
  killCursors: ['cursors'],
  count: ['query', 'limit', 'skip', 'hint', 'collation', 'fields'],
  distinct: ['key', 'query', 'collation', 'hint'],
  aggregate: [
    'pipeline',
    'explain',
    'allowDiskUse',
    'cursor',
    'bypassDocumentValidation',
    'collation',
    'hint',
    'let',
    'needsMerge',
    'fromMongos',
    'collectionUUID',
  ],
  insert: ['documents', 'ordered', 'bypassDocumentValidation', 'stmtIds', 'collectionUUID'],
  update: ['updates', 'ordered', 'bypassDocumentValidation', 'let', 'stmtIds', 'collectionUUID'],
  delete: ['deletes', 'ordered', 'let', 'stmtIds', 'collectionUUID'],
  findAndModify: [
    'query',
    'fields',
    'sort',
    'remove',
    'update',
    'new',
    'upsert',
    'bypassDocumentValidation',
    'collation',
    'arrayFilters',
    'hint',
    'let',
  ],
  createIndexes: ['indexes', 'commitQuorum', 'ignoreUnknownIndexOptions', 'collectionUUID'],
  listIndexes: ['cursor', 'includeBuildUUIDs', 'includeIndexBuildInfo', 'collectionUUID'],
  dropIndexes: ['index', 'collectionUUID'],
  listCollections: ['filter', 'nameOnly', 'authorizedCollections', 'cursor', 'includePendingDrops'],
  listDatabases: ['filter', 'nameOnly', 'authorizedDatabases'],
  drop: ['collectionUUID'],
  create: [
    'capped',
    'autoIndexId',
    'idIndex',
    'size',
    'max',
    'storageEngine',
    'validator',
    'validationLevel',
    'validationAction',
    'indexOptionDefaults',
    'viewOn',
    'pipeline',
    'collation',
    'timeseries',
    'clusteredIndex',
    'expireAfterSeconds',
    'changeStreamPreAndPostImages',
    'encryptedFields',
    'recordIdsReplicated',
    'flags',
  ],
  renameCollection: ['to', 'dropTarget', 'stayTemp', 'collectionUUID'],
  explain: ['verbosity'],
};
FIELDS.findandmodify = FIELDS.findAndModify!;
FIELDS.deleteIndexes = FIELDS.dropIndexes!;

/** The statements of `update` and `delete` are parsed, and checked, with their command. */
const STATEMENTS: Record<string, [array: string, fields: Set<string>]> = {
  update: [
    'updates',
    new Set([
      'q',
      'u',
      'c',
      'upsert',
      'multi',
      'arrayFilters',
      'hint',
      'collation',
      'sort',
      'upsertSupplied',
    ]),
  ],
  delete: ['deletes', new Set(['q', 'limit', 'hint', 'collation'])],
};

const KNOWN = new Map<string, Set<string>>(
  Object.entries(FIELDS).map(([name, fields]) => [name, new Set([name, ...GENERIC_ARGUMENTS, ...fields])]),
);

function checkFields(doc: Document, known: Set<string>, path: string): void {
  for (const field of Object.keys(doc)) {
    if (!known.has(field)) {
      throw new CommandError(ErrorCode.Location40415, `BSON field '${path}.${field}' is an unknown field.`);
    }
  }
}

/** Throws 40415 for the first field `cmd` (named `name`) or one of its statements does not accept. */
export function checkCommandFields(name: string, cmd: Document): void {
  const known = KNOWN.get(name);
  if (!known) return;
  checkFields(cmd, known, name);
  // The explained command is parsed as if it ran.
  if (name === 'explain' && isPlainObject(cmd.explain)) {
    const inner = Object.keys(cmd.explain)[0];
    if (inner !== undefined) checkCommandFields(inner, cmd.explain);
  }
  const statements = STATEMENTS[name];
  if (!statements) return;
  const [array, fields] = statements;
  const list = cmd[array];
  if (!Array.isArray(list)) return;
  for (const stmt of list) if (isPlainObject(stmt)) checkFields(stmt, fields, `${name}.${array}`);
}
