// The durable store: the engine's collections, index definitions and documents in an LMDB
// environment (the `lmdb` package) in a directory. Memory stays the engine's working state; after
// each command the changes it made are written in one LMDB batch (one transaction), and the
// command's reply waits for that commit to be synced to disk. On open, the state is rebuilt from
// the store: collections with their options and uuid, indexes from their specs (so the in-memory
// index structure owes nothing to the file), then the documents in record-id (natural) order.
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BSON, UUID } from 'bson';
import { type Database, open, type RootDatabase } from 'lmdb';
import { ID_INDEX_NAME, type Index } from './indexes.js';
import { Collection, type Engine, type Persistence } from './storage.js';
import type { Document } from './values.js';
import { decodeDocument } from './wire.js';

/** What the store holds for a collection: where it lives and which index objects it was saved with. */
interface Saved {
  dbName: string;
  name: string;
  indexes: Index[];
  /** The collection's catalogVersion (options or index specs changed in place by collMod). */
  catalogVersion: number;
}

/** Catalog entry, stored as BSON under the collection's uuid. */
interface CatalogEntry {
  db: string;
  name: string;
  options: Document;
  indexes: Document[];
}

/** One write of a commit; without a value, a removal. */
type Operation =
  | { into: 'catalog'; key: string; value?: Uint8Array }
  | { into: 'documents'; key: [string, number]; value?: Uint8Array };

const SERIALIZE_OPTIONS = { ignoreUndefined: true } as const;

/**
 * The layout this code writes and reads, kept under `layout` in the `meta` database. A store
 * written before the marker existed has the same layout: it gets the marker on its next open.
 */
const LAYOUT = 1;

/** The named databases of a store of this layout. */
const OWN_DATABASES = new Set(['catalog', 'documents', 'meta']);

/** LMDB's magic number, 0xBEEFC0DE, sits at this offset of its data file's first (meta) page. */
const LMDB_MAGIC_OFFSET = 0x18;

/** Paths held by this process, so a second engine here on the same path is refused too. */
const heldPaths = new Set<string>();

export class DurableStore implements Persistence {
  failure: Error | undefined;
  private readonly saved = new Map<Collection, Saved>();
  private readonly catalog;
  private readonly documents;

  private constructor(
    private readonly root: RootDatabase,
    private readonly lockFile: string,
  ) {
    this.catalog = root.openDB<Uint8Array, string>('catalog', { encoding: 'binary' });
    this.documents = root.openDB<Uint8Array, [string, number]>('documents', { encoding: 'binary' });
  }

  /** Opens (creating) the store in `dir`; refuses a directory another live engine is using. */
  static open(dir: string): DurableStore {
    const resolved = path.resolve(dir);
    mkdirSync(resolved, { recursive: true });
    const lockFile = lockDirectory(resolved);
    try {
      assertLmdbDataFile(resolved);
      // overlappingSync off: a commit resolves only once it is synced to disk. noSync stays off.
      const root = open({ path: resolved, noSubdir: false, maxDbs: 4, overlappingSync: false });
      try {
        claimLayout(root, resolved);
      } catch (err) {
        root.close();
        throw err;
      }
      return new DurableStore(root, lockFile);
    } catch (err) {
      unlockDirectory(lockFile);
      throw err;
    }
  }

  /** Rebuilds the engine's collections from the store. */
  load(engine: Engine): void {
    for (const { key: id, value } of this.catalog.getRange()) {
      const entry = decodeDocument(value) as unknown as CatalogEntry;
      const collection = new Collection(entry.db, entry.name, entry.options, new UUID(id));
      for (const spec of entry.indexes) if (spec.name !== ID_INDEX_NAME) collection.createIndex(spec);
      for (const { key, value: doc } of this.documents.getRange({ start: [id, 0], end: [id, Infinity] })) {
        collection.restore(key[1], decodeDocument(doc));
      }
      engine.db(entry.db).collections.set(entry.name, collection);
      this.adopt(collection);
    }
  }

  commit(engine: Engine): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    const operations = this.changes(engine);
    if (operations.length === 0) return undefined;
    return this.documents
      .batch(() => {
        for (const op of operations) {
          const target: Database<Uint8Array, typeof op.key> =
            op.into === 'catalog' ? this.catalog : this.documents;
          if (op.value) target.put(op.key, op.value);
          else target.remove(op.key);
        }
      })
      .then(
        () => undefined,
        (err: Error) => {
          this.failure ??= err;
          throw err;
        },
      );
  }

  async close(): Promise<void> {
    try {
      await this.root.close();
    } finally {
      unlockDirectory(this.lockFile);
    }
  }

  /**
   * What to write: a collection the store has not seen yet (created, or put in place by `$out`)
   * whole; a moved one or one with other indexes its catalog entry; documents changed since the
   * last commit; and everything of a collection no longer in the engine (dropped).
   */
  private changes(engine: Engine): Operation[] {
    const operations: Operation[] = [];
    const live = new Set<Collection>();
    for (const db of engine.databases.values()) {
      for (const collection of db.collections.values()) {
        live.add(collection);
        const id = collection.uuid.toHexString();
        const saved = this.saved.get(collection);
        if (!saved || catalogChanged(saved, collection)) operations.push(this.catalogPut(collection));
        if (!saved) {
          for (const [seq, doc] of collection.docs) operations.push(documentPut(id, seq, doc));
          this.adopt(collection);
          continue;
        }
        for (const [seq, doc] of collection.unsaved ?? []) {
          operations.push(doc ? documentPut(id, seq, doc) : { into: 'documents', key: [id, seq] });
        }
        collection.unsaved?.clear();
      }
    }
    for (const collection of this.saved.keys()) {
      if (live.has(collection)) continue;
      const id = collection.uuid.toHexString();
      const seqs = new Set([...collection.docs.keys(), ...(collection.unsaved?.keys() ?? [])]);
      for (const seq of seqs) operations.push({ into: 'documents', key: [id, seq] });
      operations.push({ into: 'catalog', key: id });
      this.saved.delete(collection);
      collection.unsaved = undefined;
    }
    return operations;
  }

  private catalogPut(collection: Collection): Operation {
    const entry: CatalogEntry = {
      db: collection.dbName,
      name: collection.name,
      options: collection.options,
      indexes: collection.indexSpecs(),
    };
    this.saved.set(collection, savedState(collection));
    const key = collection.uuid.toHexString();
    return { into: 'catalog', key, value: BSON.serialize(entry, SERIALIZE_OPTIONS) };
  }

  private adopt(collection: Collection): void {
    this.saved.set(collection, savedState(collection));
    collection.unsaved = new Map();
  }
}

function savedState(collection: Collection): Saved {
  return {
    dbName: collection.dbName,
    name: collection.name,
    indexes: [...collection.indexes.values()],
    catalogVersion: collection.catalogVersion,
  };
}

function documentPut(id: string, seq: number, doc: Document): Operation {
  return { into: 'documents', key: [id, seq], value: BSON.serialize(doc, SERIALIZE_OPTIONS) };
}

function catalogChanged(saved: Saved, collection: Collection): boolean {
  if (saved.dbName !== collection.dbName || saved.name !== collection.name) return true;
  if (saved.catalogVersion !== collection.catalogVersion) return true;
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
  if (layout === undefined) meta.putSync('layout', LAYOUT);
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
