// The engine's state: engine → databases → collections → documents (+ index metadata and entries).
// Documents and index entries live in the store (records.ts, index-store.ts, text-store.ts,
// persistence.ts), the catalog in memory. Stored documents are
// never mutated in place: updates build a new object and swap it in, so cursors holding references
// keep a consistent snapshot of each document, and the cache may hand one object to every reader.
import { UUID } from 'bson';
import { type Collation, parseCollation } from './collation.js';
import { CursorManager } from './cursors.js';
import { CommandError, DuplicateKeyError, ErrorCode } from './errors.js';
import { compileFilter } from './filter.js';
import { IndexStore } from './index-store.js';
import {
  defaultIndexName,
  directionsOf,
  ID_INDEX_NAME,
  INDEX_OPTIONS_NOT_KEPT,
  Index,
  type IndexKey,
  type IndexSpec,
  sameIndexOptions,
  validateIndexSpec,
} from './indexes.js';
import { newStorageId, type RecordSpace, RecordStore } from './records.js';
import { SessionCache } from './sessions.js';
import { TextIndex } from './text-index.js';
import { isTextKeyPattern, normalizeTextSpec } from './text-spec.js';
import { type Document, formatValue, isPlainObject, keyString, pathValues } from './values.js';

export function validateDbName(name: string): void {
  if (name.length === 0 || name.length > 63 || /[/\\. "$*<>:|?\0]/.test(name)) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid database name: '${name}'`);
  }
}

export function validateCollectionName(dbName: string, name: unknown): asserts name is string {
  if (typeof name !== 'string') {
    throw new CommandError(ErrorCode.InvalidNamespace, `collection name has invalid type ${typeof name}`);
  }
  if (name.length === 0 || name.includes('\0') || name.startsWith('.') || name.includes('$')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${dbName}.${name}'`);
  }
}

/** mongod's refusal of a write, or of an index command, on a view. */
export function viewNotCollection(ns: string): CommandError {
  return new CommandError(ErrorCode.CommandNotSupportedOnView, `Namespace ${ns} is a view, not a collection`);
}

export class Collection {
  dbName: string;
  name: string;
  readonly uuid: UUID;
  readonly options: Document;
  /** Record id → document, in record-id (natural) order. */
  readonly docs: RecordStore;
  readonly indexes = new Map<string, Index>();
  /**
   * Bumped when the options or an index's spec change in place (collMod), so a durable store
   * knows to rewrite the catalog entry.
   */
  catalogVersion = 0;
  private defaultCollationParsed: { collation: Collation | undefined } | undefined;

  constructor(
    private readonly space: RecordSpace,
    dbName: string,
    name: string,
    options: Document = {},
    uuid = new UUID(),
  ) {
    this.dbName = dbName;
    this.name = name;
    this.options = options;
    this.uuid = uuid;
    this.docs = new RecordStore(space, uuid.toHexString());
    this.indexes.set(ID_INDEX_NAME, newIndex({ v: 2, key: { _id: 1 }, name: ID_INDEX_NAME }, space));
  }

  get ns(): string {
    return `${this.dbName}.${this.name}`;
  }

  get count(): number {
    return this.docs.size;
  }

  /** A view (`create` with `viewOn`, views.ts): no documents of its own, read through its pipeline. */
  get isView(): boolean {
    return this.options.viewOn !== undefined;
  }

  /**
   * The collation of the operations that name none: `create`'s `collation` (kept in the options as
   * mongod shows it, every field filled in); undefined for the simple one.
   */
  get defaultCollation(): Collation | undefined {
    const spec = this.options.collation;
    this.defaultCollationParsed ??= {
      collation: isPlainObject(spec) ? parseCollation(spec) : undefined,
    };
    return this.defaultCollationParsed.collation;
  }

  private duplicateKey(index: Index, key: IndexKey): DuplicateKeyError {
    return new DuplicateKeyError(
      `E11000 duplicate key error collection: ${this.ns} index: ${index.name} dup key: ${index.formatKey(key.values)}`,
      { ...index.spec.key },
      index.keyValue(key.values),
    );
  }

  /** Inserts a document that already has an `_id`. Throws DuplicateKeyError on unique violations. */
  insert(doc: Document): number {
    const seq = this.docs.lastSeq + 1;
    const allKeys: IndexKey[][] = [];
    for (const index of this.indexes.values()) {
      const keys = index.keysFor(doc);
      const conflict = index.conflict(keys) ?? this.preparedUniqueConflict(index, keys);
      if (conflict) throw this.duplicateKey(index, conflict);
      allKeys.push(keys);
    }
    this.docs.set(seq, doc);
    let i = 0;
    for (const index of this.indexes.values()) index.add(seq, allKeys[i++]!);
    return seq;
  }

  /**
   * Puts back the indexes of a collection reopened from the store (`specs`, its `_id` index's
   * included), reading their entries where `storage` (index name → storage id) says they are, with
   * the fields `multikey` says are. One it names no place for (a store of an older layout) is
   * built, in one pass over the documents.
   */
  restoreIndexes(
    specs: Document[],
    storage: Readonly<Record<string, string>>,
    multikey: Readonly<Record<string, string[]>>,
  ): void {
    this.indexes.clear();
    const built: Index[] = [];
    for (const raw of specs) {
      const spec = normalizeIndexSpec(raw);
      const index = newIndex(spec, this.space, storage[spec.name]);
      this.indexes.set(spec.name, index);
      if (storage[spec.name] === undefined) built.push(index);
      else {
        const fields = multikey[spec.name] ?? [];
        for (let i = 0; i < index.fields.length; i++) index.multikey[i] = fields.includes(index.fields[i]!);
      }
    }
    if (built.length > 0) this.fill(built);
  }

  /** The collection's text index, if it has one (mongod allows one). */
  get textIndex(): TextIndex | undefined {
    for (const index of this.indexes.values()) if (index instanceof TextIndex) return index;
    return undefined;
  }

  /** Replaces the document stored under `seq` keeping its natural-order position. */
  replace(seq: number, doc: Document): void {
    const old = this.docs.get(seq);
    if (!old) throw new CommandError(ErrorCode.InternalError, `record ${seq} vanished`);
    const changes: Array<{ index: Index; oldKeys: IndexKey[]; newKeys: IndexKey[] }> = [];
    for (const index of this.indexes.values()) {
      if (index.keysUnchanged(old, doc)) continue;
      const oldKeys = index.keysFor(old);
      const newKeys = index.keysFor(doc);
      if (sameKeys(oldKeys, newKeys)) continue;
      const conflict = index.conflict(newKeys, seq) ?? this.preparedUniqueConflict(index, newKeys, seq);
      if (conflict) throw this.duplicateKey(index, conflict);
      changes.push({ index, oldKeys, newKeys });
    }
    for (const { index, oldKeys, newKeys } of changes) {
      index.remove(seq, oldKeys);
      index.add(seq, newKeys);
    }
    this.docs.set(seq, doc);
  }

  /**
   * collMod's `prepareUnique`: the index is not unique yet (existing duplicates stay) but refuses
   * new ones. Rare and transitional, so the other documents are scanned rather than indexed.
   */
  private preparedUniqueConflict(index: Index, keys: IndexKey[], self?: number): IndexKey | undefined {
    if (index.spec.prepareUnique !== true || index.unique) return undefined;
    const wanted = new Set(keys.map((key) => key.key));
    for (const [seq, doc] of this.docs) {
      if (seq === self) continue;
      const clash = index.keysFor(doc).find((key) => wanted.has(key.key));
      if (clash) return clash;
    }
    return undefined;
  }

  delete(seq: number): void {
    const old = this.docs.get(seq);
    if (!old) return;
    for (const index of this.indexes.values()) index.remove(seq, index.keysFor(old));
    this.docs.delete(seq);
  }

  findIndex(nameOrKey: string | Document): Index | undefined {
    if (typeof nameOrKey === 'string') return this.indexes.get(nameOrKey);
    const wanted = keyString(nameOrKey);
    for (const index of this.indexes.values()) if (keyString(index.spec.key) === wanted) return index;
    return undefined;
  }

  /**
   * Creates an index from a createIndexes spec. `created` is false when an identical index exists.
   * Building a unique index over existing duplicates fails with E11000 and leaves nothing behind.
   */
  createIndex(raw: Document): { created: boolean; name: string } {
    const spec = normalizeIndexSpec(raw);
    const specKey = keyString(spec.key);
    const sameName = this.indexes.get(spec.name);
    if (sameName) {
      if (keyString(sameName.spec.key) !== specKey) {
        throw new CommandError(
          ErrorCode.IndexKeySpecsConflict,
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`,
        );
      }
      if (!sameIndexOptions(sameName.spec, spec)) {
        throw new CommandError(
          ErrorCode.IndexOptionsConflict,
          `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`,
        );
      }
      return { created: false, name: spec.name };
    }
    for (const index of this.indexes.values()) {
      if (keyString(index.spec.key) !== specKey) continue;
      if (sameIndexOptions(index.spec, spec)) {
        throw new CommandError(
          ErrorCode.IndexOptionsConflict,
          `Index already exists with a different name: ${index.name}`,
        );
      }
      if (keyString(index.spec.partialFilterExpression) === keyString(spec.partialFilterExpression)) {
        throw new CommandError(
          ErrorCode.IndexOptionsConflict,
          `An existing index has the same key pattern but different options: ${index.name}`,
        );
      }
    }
    const text = isTextKeyPattern(spec.key);
    // mongod keeps one text index per collection: any other would be a second definition of it.
    const otherText = text && [...this.indexes.values()].find((index) => index instanceof TextIndex);
    if (otherText) {
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `An equivalent index already exists with a different name and options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(otherText.spec)}`,
      );
    }
    const index = this.buildIndex(spec);
    this.indexes.set(spec.name, index);
    return { created: true, name: spec.name };
  }

  /** An index of `spec` over the documents; E11000 (nothing kept) when a unique one has duplicates. */
  private buildIndex(spec: IndexSpec): Index {
    const index = newIndex(spec, this.space);
    this.fill([index]);
    return index;
  }

  /** Adds every document to `indexes`; on a unique index's duplicate, E11000 and they are emptied. */
  private fill(indexes: Index[]): void {
    const pass = () => {
      for (const [seq, doc] of this.docs) {
        for (const index of indexes) {
          const keys = index.keysFor(doc);
          const conflict = index.conflict(keys, seq);
          if (conflict) {
            for (const emptied of indexes) emptied.clear();
            throw this.duplicateKey(index, conflict);
          }
          index.add(seq, keys);
        }
      }
    };
    // A text index writes its entries as it is built (text-store.ts); one per collection at most.
    const text = indexes.find((index): index is TextIndex => index instanceof TextIndex);
    if (text) text.store.build(pass);
    else pass();
  }

  /** Rebuilds the index `name` from a changed spec (collMod's `unique`), keeping its place. */
  redefineIndex(name: string, spec: IndexSpec): void {
    const rebuilt = this.buildIndex(spec);
    const entries = [...this.indexes].map(([n, index]): [string, Index] => [n, n === name ? rebuilt : index]);
    this.indexes.clear();
    for (const [n, index] of entries) this.indexes.set(n, index);
    this.catalogVersion++;
  }

  /** Moves this collection to a new namespace (renameCollection). */
  renamed(dbName: string, name: string): Collection {
    this.dbName = dbName;
    this.name = name;
    return this;
  }

  dropIndex(name: string): void {
    if (name === ID_INDEX_NAME) throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    if (!this.indexes.delete(name)) {
      throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${name}]`);
    }
  }

  indexSpecs(): IndexSpec[] {
    return [...this.indexes.values()].map((index) => index.spec);
  }
}

/** An index of `spec`, its entries in `space` under `storageId` (a new index: a new id, no entries). */
function newIndex(spec: IndexSpec, space: RecordSpace, storageId = newStorageId()): Index {
  let partial: ((doc: Document) => boolean) | undefined;
  if (spec.partialFilterExpression !== undefined) {
    if (!isPlainObject(spec.partialFilterExpression)) {
      throw new CommandError(ErrorCode.TypeMismatch, 'partialFilterExpression must be an object');
    }
    const matcher = compileFilter(spec.partialFilterExpression);
    partial = (doc) => matcher.test(doc);
  }
  return isTextKeyPattern(spec.key)
    ? new TextIndex(spec, partial, space.texts, storageId, space.cache)
    : new Index(spec, partial, new IndexStore(space.keys, storageId, directionsOf(spec.key)));
}

function sameKeys(a: IndexKey[], b: IndexKey[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.key !== b[i]!.key) return false;
  return true;
}

/**
 * An index that would compare strings by a collation: its B-tree would need ICU's sort keys as its
 * keys, which Node's Intl cannot make (no getSortKey), so the engine builds none (README).
 * `whose`: "its collation", or the collection's default that the index would take.
 */
export function indexCollationRefused(name: string, collation: Collation, whose: string): CommandError {
  return new CommandError(
    ErrorCode.NotImplemented,
    `an index with a collation (other than { locale: "simple" }) is not supported by the embedded engine: index '${name}' would compare strings by ${whose} ${formatValue(collation.spec)}; create it with collation: { locale: "simple" } for a binary index`,
  );
}

export function normalizeIndexSpec(raw: Document): IndexSpec {
  if (!isPlainObject(raw))
    throw new CommandError(ErrorCode.TypeMismatch, 'index specification must be an object');
  validateIndexSpec(raw);
  const name = raw.name === undefined ? defaultIndexName(raw.key) : raw.name;
  if (typeof name !== 'string' || name.length === 0) {
    throw new CommandError(ErrorCode.BadValue, 'The index name must be a non-empty string');
  }
  const spec: IndexSpec = { v: 2, key: { ...raw.key }, name };
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'key' || k === 'name' || k === 'v' || k === 'ns' || k === 'background') continue;
    if (INDEX_OPTIONS_NOT_KEPT.has(k)) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `The field '${k}' is not valid for an index specification.`,
      );
    }
    if ((k === 'unique' || k === 'sparse') && !v) continue;
    spec[k] = k === 'unique' || k === 'sparse' ? true : v;
  }
  if (spec.collation !== undefined) {
    if (!isPlainObject(spec.collation)) {
      throw new CommandError(ErrorCode.TypeMismatch, "The field 'collation' must be an object.");
    }
    const collation = parseCollation(spec.collation);
    if (collation) throw indexCollationRefused(name, collation, 'its collation');
    // A simple index is listed without one, as on mongod.
    delete spec.collation;
  }
  if (name === ID_INDEX_NAME && keyString(spec.key) !== keyString({ _id: 1 })) {
    throw new CommandError(ErrorCode.BadValue, "The index name '_id_' is reserved for the _id index");
  }
  return isTextKeyPattern(spec.key) ? (normalizeTextSpec(spec) as IndexSpec) : spec;
}

export class Database {
  readonly name: string;
  readonly collections = new Map<string, Collection>();
  private readonly space: RecordSpace;

  constructor(name: string, space: RecordSpace) {
    this.name = name;
    this.space = space;
  }

  collection(name: string): Collection | undefined {
    return this.collections.get(name);
  }

  /** Returns the collection, creating it implicitly (as inserts/upserts/createIndexes do). */
  ensureCollection(name: string): { collection: Collection; created: boolean } {
    const existing = this.collections.get(name);
    if (existing?.isView) throw viewNotCollection(existing.ns);
    if (existing) return { collection: existing, created: false };
    validateCollectionName(this.name, name);
    const collection = new Collection(this.space, this.name, name);
    this.collections.set(name, collection);
    return { collection, created: true };
  }

  createCollection(name: string, options: Document): Collection {
    validateCollectionName(this.name, name);
    if (this.collections.has(name)) {
      throw new CommandError(ErrorCode.NamespaceExists, `Collection ${this.name}.${name} already exists.`);
    }
    const collection = new Collection(this.space, this.name, name, options);
    this.collections.set(name, collection);
    return collection;
  }

  dropCollection(name: string): Collection | undefined {
    const existing = this.collections.get(name);
    this.collections.delete(name);
    return existing;
  }
}

const TTL_SWEEP_INTERVAL_MS = 60 * 1000;

/** Where the engine's documents and catalog are kept (persistence.ts), committed after each command. */
export interface Persistence {
  /** Where the collections' documents live (records.ts). */
  readonly records: RecordSpace;
  /**
   * Saves what changed since the last commit; undefined when nothing did or nothing needs waiting
   * for (in memory). Rejects if not saved.
   */
  commit(engine: Engine): Promise<void> | undefined;
  /** Set once a commit failed: memory now holds what the disk does not, so nothing may go on. */
  readonly failure: Error | undefined;
  close(): Promise<void>;
}

export class Engine {
  readonly databases = new Map<string, Database>();
  readonly cursors = new CursorManager();
  readonly sessions = new SessionCache();
  readonly startedAt = new Date();
  private nextConnectionId = 1;
  private ttlTimer: NodeJS.Timeout | undefined;
  private readonly persistence: Persistence;

  constructor(persistence: Persistence) {
    this.persistence = persistence;
    // Like mongod's TTL monitor: expired documents are removed about once a minute.
    this.ttlTimer = setInterval(() => {
      this.expireTtlDocuments(new Date());
      // A failed commit is kept as the store's failure, which every later command reports.
      this.commit()?.catch(() => {});
    }, TTL_SWEEP_INTERVAL_MS);
    this.ttlTimer.unref();
  }

  /** Makes the changes of the last command durable; undefined when there is nothing to wait for. */
  commit(): Promise<void> | undefined {
    return this.persistence.commit(this);
  }

  /** Why this engine can no longer accept commands (its store failed to save), if it cannot. */
  get failure(): Error | undefined {
    return this.persistence.failure;
  }

  /** Where collections keep their documents: for a collection made outside a database. */
  get records(): RecordSpace {
    return this.persistence.records;
  }

  /** Deletes documents whose TTL index date + expireAfterSeconds lies before `now`. */
  expireTtlDocuments(now: Date): number {
    let removed = 0;
    for (const db of this.databases.values()) {
      for (const coll of db.collections.values()) {
        for (const index of coll.indexes.values()) {
          const seconds = index.spec.expireAfterSeconds;
          if (typeof seconds !== 'number' || index.fields.length !== 1) continue;
          const field = index.fields[0]!;
          const expired: number[] = [];
          for (const [seq, doc] of coll.docs) {
            let earliest = Number.POSITIVE_INFINITY;
            for (const v of pathValues(doc, field))
              if (v instanceof Date) earliest = Math.min(earliest, v.getTime());
            if (earliest + seconds * 1000 <= now.getTime()) expired.push(seq);
          }
          for (const seq of expired) coll.delete(seq);
          removed += expired.length;
        }
      }
    }
    return removed;
  }

  db(name: string): Database {
    let db = this.databases.get(name);
    if (!db) {
      validateDbName(name);
      db = new Database(name, this.records);
      this.databases.set(name, db);
    }
    return db;
  }

  /** Database lookup without creating it. */
  existingDb(name: string): Database | undefined {
    return this.databases.get(name);
  }

  collection(dbName: string, collName: string): Collection | undefined {
    return this.databases.get(dbName)?.collection(collName);
  }

  dropDatabase(name: string): void {
    this.databases.delete(name);
  }

  allocateConnectionId(): number {
    return this.nextConnectionId++;
  }

  async close(): Promise<void> {
    if (this.ttlTimer) clearInterval(this.ttlTimer);
    this.ttlTimer = undefined;
    this.cursors.close();
    await this.persistence.close();
  }
}
