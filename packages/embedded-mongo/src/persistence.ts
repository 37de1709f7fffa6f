// The store: the engine's collections, index definitions, documents and index entries in an LMDB
// environment (the `lmdb` package) in a directory. Documents and index entries are read from it on
// demand (records.ts, index-store.ts, text-store.ts); the catalog is held in memory. After each
// command the changes it made are written in one LMDB batch (one transaction), and a durable
// store's reply waits for that commit to be synced to disk. On open, collections come back with
// their options, uuid and indexes as they were: nothing is read but the catalog. In memory (no
// `path`), the same store runs in a temporary directory, unsynced.
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BSON, UUID } from 'bson';
import { type Database, open, type RootDatabase } from 'lmdb';
import { DEFAULT_CACHE_MB, DocumentCache } from './document-cache.js';
import { CommandError, ErrorCode } from './errors.js';
import { IndexStore, type KeysDatabase, type KeyWrite } from './index-store.js';
import type { Index } from './indexes.js';
import type { CountsDatabase, FieldsDatabase, RecordSpace, RecordWrite } from './records.js';
import { Collection, type Engine, type Persistence } from './storage.js';
import { TextIndex } from './text-index.js';
import { type TextDatabase, TextStore, type TextWrite } from './text-store.js';
import type { Document } from './values.js';
import { decodeDocument } from './wire.js';

/** What the store holds for a collection: where it lives and which index objects it was saved with. */
interface Saved {
  dbName: string;
  name: string;
  indexes: Index[];
  /** The collection's catalogVersion (options or index specs changed in place by collMod). */
  catalogVersion: number;
  /** Its indexes' multikey fields, as multikeyOf shows them. */
  multikey: string;
}

/** Catalog entry, stored as BSON under the collection's uuid. */
interface CatalogEntry {
  db: string;
  name: string;
  options: Document;
  indexes: Document[];
  /** Index name → where the index's entries are: the `keys` database, or `text` for a text index. */
  storage?: Record<string, string>;
  /** Index name → the fields some document gave several keys (Index.multikey). */
  multikey?: Record<string, string[]>;
  /** Layout 2 named only its text index's storage (ordered indexes were built on open). */
  text?: string;
}

/** One write of a commit; without a value, a removal. */
type Operation =
  | { into: 'catalog'; key: string; value?: Uint8Array }
  | RecordWrite
  | { into: 'keys'; key: KeyWrite[0]; value?: Uint8Array | undefined }
  | { into: 'text'; key: TextWrite[0]; value?: Uint8Array | undefined };

const SERIALIZE_OPTIONS = { ignoreUndefined: true } as const;

/**
 * The layout this code writes and reads, kept under `layout` in the `meta` database. Layout 1 (and a
 * store written before the marker existed) kept no index entries, layout 2 those of text indexes
 * alone: an index whose catalog entry names no storage is built once on open, and written.
 */
const LAYOUT = 3;
const LAYOUTS_READ = new Set([1, 2, LAYOUT]);

/** The named databases of a store of this layout. */
const OWN_DATABASES = new Set(['catalog', 'documents', 'fields', 'keys', 'meta', 'text']);

/**
 * Below this much free space, a failed commit is taken for a full disk (lmdb may report one as an
 * I/O error). A disk that refused a commit may still show some free: one command's commit can
 * change tens of megabytes of pages (a batch of 1,000 meetings into a dozen indexes).
 */
const FULL_DISK_BYTES = 64 * 2 ** 20;

/** LMDB's magic number, 0xBEEFC0DE, sits at this offset of its data file's first (meta) page. */
const LMDB_MAGIC_OFFSET = 0x18;

/** Paths held by this process, so a second engine here on the same path is refused too. */
const heldPaths = new Set<string>();

/** The temporary directories of in-memory stores still open, removed if the process exits first. */
const temporaryDirs = new Set<string>();
let removingOnExit = false;

export class Store implements Persistence {
  failure: Error | undefined;
  readonly records: RecordSpace;
  private readonly saved = new Map<Collection, Saved>();
  private readonly catalog;
  private readonly documents;
  private readonly fields: FieldsDatabase;
  private readonly keys: KeysDatabase;
  private readonly texts: TextDatabase;
  private readonly meta: CountsDatabase;
  /** Index entries of no index, found on open: removed by the first commit. */
  private orphans: { keys: KeyWrite[]; text: TextWrite[] } = { keys: [], text: [] };
  /** Whether this event turn's lmdb transaction has its failure handled already (commit). */
  private watchingTurn = false;

  private constructor(
    /** The directory of the LMDB environment. */
    private readonly dir: string,
    private readonly root: RootDatabase,
    cache: DocumentCache,
    /** Whether a command's reply waits for its commit (false in memory: nothing to make durable). */
    private readonly durable: boolean,
    /** Unlocks (durable) or removes (in memory) the directory once closed. */
    private readonly release: () => void,
  ) {
    this.catalog = root.openDB<Uint8Array, string>('catalog', { encoding: 'binary' });
    this.documents = root.openDB<Uint8Array, [string, number]>('documents', { encoding: 'binary' });
    this.fields = root.openDB<Uint8Array, [string, number, string]>('fields', { encoding: 'binary' });
    this.keys = root.openDB<Uint8Array, Buffer>('keys', { encoding: 'binary', keyEncoding: 'binary' });
    this.texts = root.openDB('text', { encoding: 'binary' }) as TextDatabase;
    this.meta = root.openDB<number, string>('meta', {});
    this.records = {
      documents: this.documents,
      fields: this.fields,
      counts: this.meta,
      cache,
      keys: this.keys,
      texts: this.texts,
    };
  }

  /** Opens (creating) the store in `dir`; refuses a directory another live engine is using. */
  static open(dir: string, cache = defaultCache()): Store {
    const resolved = path.resolve(dir);
    mkdirSync(resolved, { recursive: true });
    const lockFile = lockDirectory(resolved);
    try {
      assertLmdbDataFile(resolved);
      // overlappingSync off: a commit resolves only once it is synced to disk. noSync stays off.
      const root = open({ path: resolved, noSubdir: false, maxDbs: 12, overlappingSync: false });
      try {
        claimLayout(root, resolved);
      } catch (err) {
        root.close();
        throw err;
      }
      return new Store(resolved, root, cache, true, () => unlockDirectory(lockFile));
    } catch (err) {
      unlockDirectory(lockFile);
      throw err;
    }
  }

  /**
   * The in-memory engine's store: LMDB in a fresh temporary directory, removed on close (or when
   * the process exits), so documents stay out of the heap there too. Unsynced: nothing is durable.
   */
  static temporary(cache = defaultCache()): Store {
    removeAbandonedTemporaryDirs();
    const dir = mkdtempSync(path.join(tmpdir(), TEMPORARY_PREFIX));
    // Its owner, so that a later engine can tell it abandoned when this process is killed.
    writeFileSync(path.join(dir, 'engine.pid'), String(process.pid));
    temporaryDirs.add(dir);
    if (!removingOnExit) process.once('exit', removeTemporaryDirs);
    removingOnExit = true;
    const remove = () => {
      rmSync(dir, { recursive: true, force: true });
      temporaryDirs.delete(dir);
    };
    try {
      return new Store(dir, open({ path: dir, maxDbs: 12, noSync: true }), cache, false, remove);
    } catch (err) {
      remove();
      throw err;
    }
  }

  /**
   * Puts the stored collections back into the engine. An index built here (its catalog entry, of an
   * older layout, names no storage for it) is written at once, with its catalog entry: the engine
   * answers once that is done.
   */
  async load(engine: Engine): Promise<void> {
    const named = new Set<string>();
    for (const { key: id, value } of this.catalog.getRange()) {
      const entry = decodeDocument(value) as unknown as CatalogEntry;
      const collection = new Collection(this.records, entry.db, entry.name, entry.options, new UUID(id));
      const storage = { ...entry.storage };
      const text = entry.indexes.find((spec) => Object.values(spec.key as Document).includes('text'));
      if (entry.text && text) storage[text.name as string] ??= entry.text;
      collection.restoreIndexes(entry.indexes, storage, entry.multikey ?? {});
      engine.db(entry.db).collections.set(entry.name, collection);
      // Not saved when an index was built: the next commit writes the catalog entry naming it.
      if (entry.indexes.every((spec) => storage[spec.name as string] !== undefined))
        this.saved.set(collection, savedState(collection));
      for (const storageId of Object.values(storage)) named.add(storageId);
    }
    // Entries no catalog entry names: those of a build a crash cut short.
    for (const id of IndexStore.storageIds(this.keys))
      if (!named.has(id)) this.orphans.keys.push(...IndexStore.removals(this.keys, id));
    for (const id of TextStore.storageIds(this.texts))
      if (!named.has(id)) this.orphans.text.push(...TextStore.removals(this.texts, id));
    await this.commit(engine);
  }

  commit(engine: Engine): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    const { operations, settle, written } = this.changes(engine);
    if (operations.length === 0 && written.length === 0) return undefined;
    let batch: Promise<unknown>;
    try {
      batch = this.documents.batch(() => {
        for (const op of operations) {
          const target = this.databaseOf(op.into) as Database<typeof op.value, typeof op.key>;
          if (op.value !== undefined) target.put(op.key, op.value);
          else target.remove(op.key);
        }
      });
    } catch (err) {
      // lmdb refuses some writes at once (a key too long, say): the command fails as a commit would.
      batch = Promise.reject(err);
    }
    // lmdb gathers an event turn's writes in a transaction of its own making, whose promise it
    // keeps (write.js, eventTurnBatching) and rejects too when the commit fails (a full disk):
    // handled once lmdb has made it (one per turn), or Node would end the process on it.
    if (!this.watchingTurn) {
      this.watchingTurn = true;
      setImmediate(() => {
        this.watchingTurn = false;
        this.root.committed.then(undefined, () => {});
      });
    }
    const committed = batch.then(
      () => {
        for (const done of settle) done();
      },
      (err: Error & { commitError?: Promise<unknown> }) => {
        const summary = this.diagnosed(err);
        this.failure ??= summary;
        // lmdb rejects a failed commit (a full disk) with a summary whose `commitError` is a promise
        // rejected with the cause: handled here (Node ends a process on an unhandled rejection), and
        // the cause becomes the failure every later command reports.
        if (!err.commitError) throw summary;
        return err.commitError.then(
          () => {
            throw summary;
          },
          (cause: unknown) => {
            const failure = cause instanceof Error ? this.diagnosed(cause) : summary;
            if (this.failure === summary) this.failure = failure;
            throw failure;
          },
        );
      },
    );
    // A text index built by the command wrote its entries before this commit: readers find them only
    // in LMDB, so the reply waits for them, in memory too.
    if (this.durable || written.length > 0) return Promise.all([committed, ...written]).then(() => {});
    // Readers see the changes through the overlay meanwhile; a failure is kept as this.failure.
    committed.catch(() => {});
    return undefined;
  }

  /** A commit's failure, as mongod's OutOfDiskSpace when the disk holding the store is (nearly) full. */
  private diagnosed(failure: Error): Error {
    let free: number;
    try {
      const disk = statfsSync(this.dir);
      free = disk.bavail * disk.bsize;
    } catch {
      return failure;
    }
    if (free >= FULL_DISK_BYTES) return failure;
    return new CommandError(
      ErrorCode.OutOfDiskSpace,
      `the disk holding ${this.dir} is full (${free} bytes free): ${failure.message}`,
    );
  }

  private databaseOf(into: Operation['into']): Database {
    if (into === 'catalog') return this.catalog;
    if (into === 'documents') return this.documents;
    if (into === 'fields') return this.fields;
    if (into === 'counts') return this.meta;
    return into === 'keys' ? this.keys : this.texts;
  }

  async close(): Promise<void> {
    try {
      await this.root.close();
    } finally {
      this.release();
    }
  }

  /**
   * What to write: the catalog entry of a collection the store has not seen yet (created, or put
   * in place by `$out`), moved, or with other indexes; every collection's document and text index
   * changes since the last commit (`settle` once committed); everything of a text index no longer
   * in the engine; and everything of a collection no longer in the engine (dropped).
   */
  private changes(engine: Engine): {
    operations: Operation[];
    settle: (() => void)[];
    written: Promise<void>[];
  } {
    const operations: Operation[] = [];
    const settle: (() => void)[] = [];
    const written: Promise<void>[] = [];
    const live = new Set<Collection>();
    const texts = (writes: Iterable<TextWrite>) => {
      for (const [key, value] of writes) operations.push({ into: 'text', key, value });
    };
    const keys = (writes: Iterable<KeyWrite>) => {
      for (const [key, value] of writes) operations.push({ into: 'keys', key, value });
    };
    const dropped = (indexes: Index[]) => {
      for (const index of indexes) {
        if (index instanceof TextIndex) texts(index.store.drop());
        else keys(index.entries!.drop());
      }
    };
    texts(this.orphans.text.splice(0));
    keys(this.orphans.keys.splice(0));
    for (const db of engine.databases.values()) {
      for (const collection of db.collections.values()) {
        live.add(collection);
        const saved = this.saved.get(collection);
        if (!saved || catalogChanged(saved, collection)) {
          // An index dropped (or redefined) changed the catalog entry: its entries go with it.
          if (saved) dropped(droppedIndexes(saved.indexes, collection));
          operations.push(this.catalogPut(collection));
        }
        for (const index of collection.indexes.values()) {
          if (!index.entries) continue;
          const taken = index.entries.takeUnsaved();
          if (taken.writes.length === 0) continue;
          keys(taken.writes);
          settle.push(taken.settle);
        }
        const text = collection.textIndex?.store.takeUnsaved();
        if (text) {
          texts(text.writes);
          settle.push(text.settle);
          written.push(...text.written);
        }
        const records = collection.docs.takeUnsaved();
        if (records.writes.length === 0) continue;
        for (const write of records.writes) operations.push(write);
        settle.push(records.settle);
      }
    }
    for (const [collection, saved] of this.saved) {
      if (live.has(collection)) continue;
      for (const write of collection.docs.drop()) operations.push(write);
      dropped(droppedIndexes(saved.indexes, undefined));
      operations.push({ into: 'catalog', key: collection.uuid.toHexString() });
      this.saved.delete(collection);
    }
    return { operations, settle, written };
  }

  private catalogPut(collection: Collection): Operation {
    const entry: CatalogEntry = {
      db: collection.dbName,
      name: collection.name,
      options: collection.options,
      indexes: collection.indexSpecs(),
      storage: Object.fromEntries([...collection.indexes].map(([name, index]) => [name, index.storageId])),
      multikey: multikeyOf(collection),
    };
    this.saved.set(collection, savedState(collection));
    const key = collection.uuid.toHexString();
    return { into: 'catalog', key, value: BSON.serialize(entry, SERIALIZE_OPTIONS) };
  }
}

function defaultCache(): DocumentCache {
  return new DocumentCache(DEFAULT_CACHE_MB * 2 ** 20);
}

function removeTemporaryDirs(): void {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
}

const TEMPORARY_PREFIX = 'embedded-mongo-memory-';

/**
 * An in-memory engine killed (SIGKILL, a crash) leaves its temporary directory behind: the next one
 * removes those whose owner is gone. One without an owner yet is being created: left alone.
 */
function removeAbandonedTemporaryDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(TEMPORARY_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(path.join(dir, 'engine.pid'), 'utf8'));
    } catch {
      continue;
    }
    if (owner !== process.pid && !isAlive(owner)) rmSync(dir, { recursive: true, force: true });
  }
}

function savedState(collection: Collection): Saved {
  return {
    dbName: collection.dbName,
    name: collection.name,
    indexes: [...collection.indexes.values()],
    catalogVersion: collection.catalogVersion,
    multikey: JSON.stringify(multikeyOf(collection)),
  };
}

/** Index name → its multikey fields, for the indexes that have any. */
function multikeyOf(collection: Collection): Record<string, string[]> {
  const multikey: Record<string, string[]> = {};
  for (const [name, index] of collection.indexes) {
    const fields = index.fields.filter((_, i) => index.multikey[i]);
    if (fields.length > 0) multikey[name] = fields;
  }
  return multikey;
}

/** The indexes of `saved` that `collection` (undefined: dropped) no longer has. */
function droppedIndexes(saved: Index[], collection: Collection | undefined): Index[] {
  const live = new Set(collection?.indexes.values());
  return saved.filter((index) => !live.has(index));
}

function catalogChanged(saved: Saved, collection: Collection): boolean {
  if (saved.dbName !== collection.dbName || saved.name !== collection.name) return true;
  if (saved.catalogVersion !== collection.catalogVersion) return true;
  if (saved.multikey !== JSON.stringify(multikeyOf(collection))) return true;
  const indexes = [...collection.indexes.values()];
  return indexes.length !== saved.indexes.length || indexes.some((index, i) => index !== saved.indexes[i]);
}

/**
 * One engine per directory: two would each keep their own memory and overwrite each other's
 * writes. The lock file names the holder's pid; one left by a dead process is taken over.
 */
function lockDirectory(dir: string): string {
  const lockFile = path.join(dir, 'engine.pid');
  if (heldPaths.has(dir)) throw inUse(dir, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      heldPaths.add(dir);
      return lockFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lockFile, 'utf8'));
      // Our own pid here is a leftover of an earlier life (containers reuse pids): not held.
      if (holder !== process.pid && isAlive(holder)) throw inUse(dir, holder);
      rmSync(lockFile, { force: true });
    }
  }
  throw inUse(dir, undefined);
}

function unlockDirectory(lockFile: string): void {
  rmSync(lockFile, { force: true });
  heldPaths.delete(path.dirname(lockFile));
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function notOurs(dir: string, why: string): Error {
  return new Error(
    `the embedded engine cannot use ${dir} as its data directory: ${why}. Give it an empty directory, or one it wrote.`,
  );
}

/**
 * A data file LMDB would not recognise is refused before LMDB maps it: LMDB trusts the file it
 * opens, and a foreign or damaged one crashes the process (a segmentation fault, no error).
 */
function assertLmdbDataFile(dir: string): void {
  let fd: number;
  try {
    fd = openSync(path.join(dir, 'data.mdb'), 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // a new store
    throw err;
  }
  try {
    const header = Buffer.alloc(LMDB_MAGIC_OFFSET + 4);
    const read = readSync(fd, header, 0, header.length, 0);
    if (read < header.length || header.readUInt32LE(LMDB_MAGIC_OFFSET) !== 0xbeefc0de)
      throw notOurs(dir, 'its data.mdb is not an LMDB data file');
  } finally {
    closeSync(fd);
  }
}

/** Refuses an LMDB store another program wrote, or a layout this code does not read; marks a new one. */
function claimLayout(root: RootDatabase, dir: string): void {
  const foreign = [...root.getKeys()].map(String).filter((name) => !OWN_DATABASES.has(name));
  if (foreign.length > 0)
    throw notOurs(dir, `it holds an LMDB store this engine did not write (databases ${foreign.join(', ')})`);
  const meta = root.openDB<number, string>('meta', {});
  const layout = meta.get('layout');
  if (layout === undefined || (layout !== LAYOUT && LAYOUTS_READ.has(layout))) meta.putSync('layout', LAYOUT);
  else if (layout !== LAYOUT)
    throw notOurs(
      dir,
      `it was written in layout ${layout} by another version of the engine, which reads layout ${LAYOUT}`,
    );
}

function inUse(dir: string, pid: number | undefined): Error {
  const who = pid === undefined ? 'another process' : `process ${pid}`;
  return new Error(`the embedded engine's data directory ${dir} is in use by ${who}`);
}
