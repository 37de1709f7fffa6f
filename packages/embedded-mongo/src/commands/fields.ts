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
  bulkWrite: [
    'ops',
    'nsInfo',
    'cursor',
    'bypassDocumentValidation',
    'ordered',
    'stmtId',
    'stmtIds',
    'let',
    'errorsOnly',
  ],
};
FIELDS.findandmodify = FIELDS.findAndModify!;
FIELDS.deleteIndexes = FIELDS.dropIndexes!;

/** The fields a statement of a command accepts; undefined for a statement the command parses itself. */
type StatementFields = (stmt: Document) => Set<string> | undefined;
function always(fields: string[]): StatementFields {
  const known = new Set(fields);
  return () => known;
}

/** bulkWrite's ops, of three kinds told apart by their first field. */
const BULK_WRITE_OPS: Record<string, Set<string>> = {
  insert: new Set(['insert', 'document']),
  update: new Set([
    'update',
    'filter',
    'sort',
    'multi',
    'updateMods',
    'upsert',
    'upsertSupplied',
    'arrayFilters',
    'hint',
    'constants',
    'collation',
    'sampleId',
    '$_allowShardKeyUpdatesWithoutFullShardKeyInQuery',
  ]),
  delete: new Set(['delete', 'filter', 'multi', 'hint', 'collation', 'sampleId']),
};

/** The statements of `update`, `delete` and `bulkWrite` are parsed, and checked, with their command. */
const STATEMENTS: Record<string, Array<[array: string, fields: StatementFields]>> = {
  update: [
    [
      'updates',
      always([
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
  ],
  delete: [['deletes', always(['q', 'limit', 'hint', 'collation'])]],
  bulkWrite: [
    ['ops', (op) => BULK_WRITE_OPS[Object.keys(op)[0] ?? '']],
    [
      'nsInfo',
      always([
        'ns',
        'collectionUUID',
        'encryptionInformation',
        'isTimeseriesNamespace',
        'shardVersion',
        'databaseVersion',
      ]),
    ],
  ],
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
  for (const [array, fieldsOf] of STATEMENTS[name] ?? []) {
    const list = cmd[array];
    if (!Array.isArray(list)) continue;
    for (const stmt of list) {
      const fields = isPlainObject(stmt) ? fieldsOf(stmt) : undefined;
      if (fields) checkFields(stmt as Document, fields, `${name}.${array}`);
    }
  }
}
