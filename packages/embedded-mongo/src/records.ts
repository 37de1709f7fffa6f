// A collection's documents by record id, kept in the store's `documents` database
// (persistence.ts: key [collection uuid, record id], value the document's BSON) and read on demand,
// point reads through the engine's bounded cache (document-cache.ts). The interface is a Map's
// (get, has, set, delete, size, iteration in record-id order), so the engine reads it as it read
// the Map that held every document before.
//
// A large document's large top-level fields (a transcript's lines) are kept apart, in the `fields`
// database under [collection uuid, record id, field name] (stored-document.ts splitDocument): a
// read of its other fields copies its small head alone, and one of all of it joins them again.
//
// Writes are not put in LMDB here: each goes to an overlay (record id → new document, or null when
// deleted) and is noted as unsaved; after the command the store takes the unsaved changes into one
// LMDB transaction (takeUnsaved) and, once it committed, drops from the overlay what it wrote
// (settle). Reads look in the overlay first, so they see the command's own writes and those whose
// commit is still in flight.
import { randomBytes } from 'node:crypto';
import { BSON } from 'bson';
import type { Database } from 'lmdb';
import type { CachePartition, DocumentCache } from './document-cache.js';
import type { KeysDatabase } from './index-store.js';
import {
  apartPlaces,
  headOf,
  joinDocument,
  LARGE_DOCUMENT_BYTES,
  partialDocument,
  splitDocument,
  storedDocument,
} from './stored-document.js';
import type { TextDatabase } from './text-store.js';
import type { Document } from './values.js';
import { decodeDocument } from './wire.js';

/** Key [collection uuid as hex, record id] → the document's BSON (its head, when it keeps fields apart). */
export type DocumentsDatabase = Database<Uint8Array, [string, number]>;
/** Key [collection uuid as hex, record id, field name] → a field kept apart: its BSON element. */
export type FieldsDatabase = Database<Uint8Array, [string, number, string]>;

/** Key `count <collection uuid as hex>` → how many documents the collection holds (in `meta`). */
export type CountsDatabase = Database<number, string>;

/** What every collection's records share: the store's documents and the engine-wide cache. */
export interface RecordSpace {
  readonly documents: DocumentsDatabase;
  readonly fields: FieldsDatabase;
  /** Each collection's count, written with its documents: opening reads it, not every key. */
  readonly counts: CountsDatabase;
  readonly cache: DocumentCache;
  /** Where ordered indexes keep their entries (index-store.ts). */
  readonly keys: KeysDatabase;
  /** Where text indexes keep their entries (text-store.ts). */
  readonly texts: TextDatabase;
}

/**
 * A new name for where an index keeps its entries, written in its collection's catalog entry: a
 * dropped and recreated index never reads the entries of the one before.
 */
export function newStorageId(): string {
  return randomBytes(6).toString('base64url');
}

/** A change of a command, for the store to write: the new document, or null for a deletion. */
type RecordChange = readonly [seq: number, doc: Document | null];

/** A write of the store's next commit; without a value, a removal. */
export type RecordWrite =
  | { into: 'documents'; key: [string, number]; value?: Uint8Array }
  | { into: 'fields'; key: [string, number, string]; value?: Uint8Array }
  | { into: 'counts'; key: string; value?: number };

const SERIALIZE_OPTIONS = { ignoreUndefined: true } as const;
/** Sorts after every field name: the end of a record's range in `fields`. */
const AFTER_NAMES = '\uffff';

export class RecordStore implements Iterable<[number, Document]> {
  private readonly overlay = new Map<number, Document | null>();
  private readonly unsaved = new Set<number>();
  /** Records inserted since their last commit was taken: LMDB holds no field of theirs. */
  private readonly inserted = new Set<number>();
  /** Fields kept apart by commits taken and not done yet, by record: LMDB may hold them soon. */
  private readonly apartInFlight = new Map<number, Set<string>>();
  private readonly cached: CachePartition;
  /**
   * Heads of documents that keep fields apart (their other fields), decoded, with the names of those
   * apart: most reads of such documents want the head alone, and then read nothing from LMDB.
   */
  private readonly heads: CachePartition<{ doc: Document; apart: string[] }>;
  private count: number;
  /** The count LMDB holds, or its next commit will; undefined: none (a store written before counts). */
  private countSaved: number | undefined;
  private highest: number;

  constructor(
    private readonly space: RecordSpace,
    private readonly collectionId: string,
  ) {
    this.cached = space.cache.partition();
    this.heads = space.cache.partition();
    this.countSaved = space.counts.get(this.countKey);
    this.count = this.countSaved ?? space.documents.getCount(this.range(1));
    this.highest = 0;
    for (const [, seq] of space.documents.getKeys({ ...this.range(-1), limit: 1 })) this.highest = seq;
  }

  get size(): number {
    return this.count;
  }

  /** The highest record id this collection has held: a new document takes one above it. */
  get lastSeq(): number {
    return this.highest;
  }

  get(seq: number): Document | undefined {
    const changed = this.overlay.get(seq);
    if (changed !== undefined) return changed ?? undefined;
    return this.cached.get(seq) ?? this.load(seq, false);
  }

  /**
   * The document, or only its top-level `fields` when given and it is a large one the store must
   * give (a changed, cached or small document is given whole): a find reading three fields of a
   * 100 KB transcript copies and decodes those alone. Of such parts only heads are cached (the
   * fields not kept apart, which is what most reads of such a document want).
   */
  read(seq: number, fields: ReadonlySet<string> | undefined): Document | undefined {
    if (!fields) return this.get(seq);
    const changed = this.overlay.get(seq);
    if (changed !== undefined) return changed ?? undefined;
    const cached = this.cached.get(seq) ?? this.cachedHead(seq, fields);
    if (cached) return cached;
    // LMDB's own buffer, reused by its next read: no copy of the whole document.
    const bytes = this.space.documents.getBinaryFast([this.collectionId, seq]);
    if (!bytes) return undefined;
    // A small one is cached whole, from a copy of the bytes just read (not read again). A copy by
    // Uint8Array's slice, to the length lmdb set: a Buffer's slice is a view of the reused buffer.
    const places = apartPlaces(bytes);
    if (places.length === 0 && bytes.length < LARGE_DOCUMENT_BYTES)
      return this.cache(seq, Uint8Array.prototype.slice.call(bytes, 0, bytes.length), false);
    return this.partOf(seq, bytes, places, fields);
  }

  /**
   * At least the top-level `fields` of the document (a changed or cached one is given whole), and
   * nothing cached but a head (see `read`): a sort with a limit compares thousands of documents by
   * a field or two and returns a few (plan-executor.ts).
   */
  part(seq: number, fields: ReadonlySet<string>): Document | undefined {
    const changed = this.overlay.get(seq);
    if (changed !== undefined) return changed ?? undefined;
    const cached = this.cached.peek(seq) ?? this.cachedHead(seq, fields);
    if (cached) return cached;
    const bytes = this.space.documents.getBinaryFast([this.collectionId, seq]);
    return bytes && this.partOf(seq, bytes, apartPlaces(bytes), fields);
  }

  /** The `fields` of record `seq` stored as `bytes` (lmdb's reused buffer, not kept), `places` apart. */
  private partOf(
    seq: number,
    bytes: Uint8Array,
    places: Array<[number, string]>,
    fields: ReadonlySet<string>,
  ): Document {
    if (places.length === 0) return partialDocument(bytes, fields);
    const wanted = places.filter(([, name]) => fields.has(name));
    if (wanted.length === 0) return this.head(seq, bytes, places);
    // Copied first: reading the apart fields reuses lmdb's buffer.
    const head = Uint8Array.prototype.slice.call(bytes, 0, bytes.length);
    return partialDocument(joinDocument(head, wanted, this.apart(seq, wanted)), fields);
  }

  has(seq: number): boolean {
    const changed = this.overlay.get(seq);
    if (changed !== undefined) return changed !== null;
    // Every record id comes through set, so none above the highest is stored: no lookup for inserts.
    if (seq > this.highest) return false;
    return this.cached.peek(seq) !== undefined || this.space.documents.doesExist([this.collectionId, seq]);
  }

  set(seq: number, doc: Document): this {
    if (!this.has(seq)) {
      this.count++;
      if (!this.overlay.has(seq)) this.inserted.add(seq);
    }
    this.highest = Math.max(this.highest, seq);
    this.change(seq, doc);
    return this;
  }

  delete(seq: number): boolean {
    if (!this.has(seq)) return false;
    this.count--;
    this.change(seq, null);
    return true;
  }

  clear(): void {
    for (const seq of [...this.keys()]) this.change(seq, null);
    this.count = 0;
  }

  /** Documents in record-id order, ascending (1) or descending (-1). */
  *entries(direction: 1 | -1 = 1): Generator<[number, Document]> {
    for (const [seq, doc] of this.merged(direction, true)) yield [seq, doc!];
  }

  /** At least the top-level `fields` of every document, in record-id order (see `part`). */
  *parts(direction: 1 | -1, fields: ReadonlySet<string>): Generator<[number, Document]> {
    for (const seq of this.keys(direction)) {
      const doc = this.part(seq, fields);
      if (doc) yield [seq, doc];
    }
  }

  *keys(direction: 1 | -1 = 1): Generator<number> {
    for (const [seq] of this.merged(direction, false)) yield seq;
  }

  *values(direction: 1 | -1 = 1): Generator<Document> {
    for (const [, doc] of this.merged(direction, true)) yield doc!;
  }

  [Symbol.iterator](): Iterator<[number, Document]> {
    return this.entries();
  }

  /**
   * The writes of the changes since the last call, for the store's next commit, and what to call once
   * it is done. A record's fields kept apart before and no longer are removed.
   */
  takeUnsaved(): { writes: RecordWrite[]; settle: () => void } {
    const changes: RecordChange[] = [];
    const writes: RecordWrite[] = [];
    const id = this.collectionId;
    for (const seq of this.unsaved) {
      const doc = this.overlay.get(seq)!;
      changes.push([seq, doc]);
      const split = doc && splitDocument(BSON.serialize(doc, SERIALIZE_OPTIONS));
      writes.push({ into: 'documents', key: [id, seq], value: split?.head });
      const kept = new Set<string>();
      for (const [name, element] of split?.apart ?? []) {
        writes.push({ into: 'fields', key: [id, seq, name], value: element });
        kept.add(name);
      }
      if (!this.inserted.has(seq))
        for (const name of this.apartNames(seq))
          if (!kept.has(name)) writes.push({ into: 'fields', key: [id, seq, name] });
      if (kept.size > 0) {
        const inFlight = this.apartInFlight.get(seq) ?? new Set();
        for (const name of kept) inFlight.add(name);
        this.apartInFlight.set(seq, inFlight);
      }
    }
    this.unsaved.clear();
    this.inserted.clear();
    // Exact: the changes of every command so far are in this commit or one before it.
    if (this.count !== this.countSaved) {
      writes.push({ into: 'counts', key: this.countKey, value: this.count });
      this.countSaved = this.count;
    }
    const settle = () => {
      for (const [seq, doc] of changes) {
        if (this.overlay.get(seq) === doc) this.overlay.delete(seq);
        // In LMDB now, where apartNames finds them.
        this.apartInFlight.delete(seq);
      }
    };
    return { writes, settle };
  }

  /**
   * The collection is dropped: its cached documents go, and this gives the removals of everything
   * LMDB may hold for it, stored or written by a commit still in flight.
   */
  drop(): RecordWrite[] {
    this.cached.clear();
    this.heads.clear();
    const id = this.collectionId;
    const seqs = new Set(this.overlay.keys());
    for (const [, seq] of this.space.documents.getKeys(this.range(1))) seqs.add(seq);
    const writes: RecordWrite[] = [...seqs].map((seq) => ({ into: 'documents', key: [id, seq] }));
    writes.push({ into: 'counts', key: this.countKey });
    // A field both stored and in flight is removed twice: harmless.
    for (const [, seq, name] of this.space.fields.getKeys({
      start: [id],
      end: [id, Number.POSITIVE_INFINITY],
    }))
      writes.push({ into: 'fields', key: [id, seq, name] });
    for (const [seq, names] of this.apartInFlight)
      for (const name of names) writes.push({ into: 'fields', key: [id, seq, name] });
    return writes;
  }

  /** The names of the fields LMDB holds, or a commit in flight will, for record `seq`. */
  private apartNames(seq: number): Set<string> {
    const names = new Set(this.apartInFlight.get(seq));
    const range = { start: [this.collectionId, seq, ''], end: [this.collectionId, seq, AFTER_NAMES] };
    for (const key of this.space.fields.getKeys(range)) names.add(key[2]);
    return names;
  }

  /** The fields of record `seq` named in `places`, from LMDB (copies of their own). */
  private apart(seq: number, places: Array<[number, string]>): Map<string, Uint8Array> {
    const elements = new Map<string, Uint8Array>();
    for (const [, name] of places) {
      const element = this.space.fields.get([this.collectionId, seq, name]);
      if (element) elements.set(name, element);
    }
    return elements;
  }

  /** The head of record `seq` stored as `bytes` (lmdb's reused buffer, not kept), `places` apart; cached. */
  private head(seq: number, bytes: Uint8Array, places: Array<[number, string]>): Document {
    const head = headOf(bytes);
    const doc = decodeDocument(head);
    this.heads.put(seq, { doc, apart: places.map(([, name]) => name) }, head.length, false);
    return doc;
  }

  /** The cached head of record `seq` when it holds all of `fields` it has. */
  private cachedHead(seq: number, fields: ReadonlySet<string>): Document | undefined {
    const head = this.heads.get(seq);
    return head && !head.apart.some((name) => fields.has(name)) ? head.doc : undefined;
  }

  /** The stored document, decoded (a large one as its fields are read: lazy-document.ts) and cached. */
  private load(seq: number, byScan: boolean): Document | undefined {
    // `get` gives the bytes a copy of their own, which a lazily decoded document may keep.
    const bytes = this.space.documents.get([this.collectionId, seq]);
    if (!bytes) return undefined;
    const places = apartPlaces(bytes);
    return this.cache(
      seq,
      places.length > 0 ? joinDocument(bytes, places, this.apart(seq, places)) : bytes,
      byScan,
    );
  }

  /** The document of `bytes` (which it may keep), cached. */
  private cache(seq: number, bytes: Uint8Array, byScan: boolean): Document {
    const doc = storedDocument(bytes);
    this.cached.put(seq, doc, bytes.length, byScan);
    return doc;
  }

  private change(seq: number, doc: Document | null): void {
    this.overlay.set(seq, doc);
    this.unsaved.add(seq);
    this.cached.evict(seq);
    this.heads.evict(seq);
  }

  private get countKey(): string {
    return `count ${this.collectionId}`;
  }

  private range(direction: 1 | -1) {
    const id = this.collectionId;
    return direction === 1
      ? { start: [id, 0], end: [id, Number.POSITIVE_INFINITY] }
      : { start: [id, Number.POSITIVE_INFINITY], end: [id, 0], reverse: true };
  }

  /**
   * The stored records merged with the overlay, in record-id order. Keys come from LMDB alone, so
   * a cached document costs no read of its bytes; one that is not is cached as scanned (evicted
   * first, see document-cache.ts).
   */
  private *merged(direction: 1 | -1, withDocs: boolean): Generator<[number, Document | undefined]> {
    const changed = [...this.overlay.keys()].sort((a, b) => (a - b) * direction);
    let next = 0;
    const fromOverlay = (seq: number): [number, Document] | undefined => {
      const doc = this.overlay.get(seq);
      return doc ? [seq, doc] : undefined;
    };
    for (const [, seq] of this.space.documents.getKeys(this.range(direction))) {
      while (next < changed.length && (changed[next]! - seq) * direction < 0) {
        const entry = fromOverlay(changed[next++]!);
        if (entry) yield entry;
      }
      if (changed[next] === seq) continue; // changed: its overlay version comes in its turn
      yield [seq, withDocs ? (this.cached.peek(seq) ?? this.load(seq, true)) : undefined];
    }
    while (next < changed.length) {
      const entry = fromOverlay(changed[next++]!);
      if (entry) yield entry;
    }
  }
}
