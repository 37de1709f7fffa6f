// The engine-wide cache of decoded documents, so the documents read again skip LMDB and BSON
// decoding. Bounded by the documents' BSON sizes. Every collection's record store (records.ts) has a
// partition of it: its own entries by record id, under the one bound; a text index keeps what its
// searches read from LMDB in partitions of its own, by term and by word (text-store.ts). Cached documents are shared
// with every reader, which is safe because the engine never mutates a stored document in place.
//
// Scan-resistant (a segmented LRU): what a collection scan reads waits in a segment of its own and
// is evicted first, so one pass over a large collection cannot flush what point reads (by record
// id, after an index scan) keep using; a point read of a scanned document moves it to theirs. A
// collection that fits is still scanned from the cache the next time.
import type { Document } from './values.js';

/**
 * 64 MB of BSON is a few times that in decoded objects (the heap holds every field as a
 * JavaScript value): a few hundred MB of heap at most, well under what holding every document
 * cost, yet room for the working set of the gateway's pages (meetings and their latest lines).
 */
export const DEFAULT_CACHE_MB = 64;

interface Entry<T = unknown> {
  readonly partition: Map<unknown, Entry>;
  readonly key: unknown;
  readonly doc: T;
  readonly bytes: number;
  /** Brought in by a scan and not read by a point read since. */
  scanned: boolean;
}

export class DocumentCache {
  /** Entries a scan brought in that no point read has asked for since, oldest first. */
  private readonly scanned = new Set<Entry>();
  /** Entries point reads asked for, least recently used first (a Set keeps insertion order). */
  private readonly used = new Set<Entry>();
  private held = 0;

  constructor(readonly capacityBytes: number) {}

  /** The BSON bytes of the documents it holds: never above `capacityBytes`. */
  get bytes(): number {
    return this.held;
  }

  /** A partition of documents by record id, or of other things read from the store (`T`, by `K`). */
  partition<T = Document, K = number>(): CachePartition<T, K> {
    return new CachePartition<T, K>(this);
  }

  /** @internal A point read of `entry`: now the most recently used. */
  touch(entry: Entry): void {
    this.segmentOf(entry).delete(entry);
    entry.scanned = false;
    this.used.add(entry);
  }

  /** @internal Holds `entry`, evicting the oldest scanned entries, then the least recently used. */
  admit(entry: Entry): void {
    this.segmentOf(entry).add(entry);
    this.held += entry.bytes;
    while (this.held > this.capacityBytes) {
      const oldest = (this.scanned.size > 0 ? this.scanned : this.used).values().next().value!;
      oldest.partition.delete(oldest.key);
      this.drop(oldest);
    }
  }

  /** @internal */
  drop(entry: Entry): void {
    this.segmentOf(entry).delete(entry);
    this.held -= entry.bytes;
  }

  private segmentOf(entry: Entry): Set<Entry> {
    return entry.scanned ? this.scanned : this.used;
  }
}

/** One collection's documents in the cache, by record id (or what `T` and `K` say). */
export class CachePartition<T = Document, K = number> {
  private readonly entries = new Map<K, Entry<T>>();

  constructor(private readonly cache: DocumentCache) {}

  /** A point read's lookup: the cached document, now the most recently used. */
  get(key: K): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.cache.touch(entry);
    return entry.doc;
  }

  /** A scan's lookup: the cached document, its place unchanged. */
  peek(key: K): T | undefined {
    return this.entries.get(key)?.doc;
  }

  /** Caches a document read from the store; `bytes`, its BSON size, is what it costs. */
  put(key: K, doc: T, bytes: number, byScan: boolean): void {
    if (bytes > this.cache.capacityBytes) return;
    this.evict(key);
    const entry: Entry<T> = {
      partition: this.entries as Map<unknown, Entry>,
      key,
      doc,
      bytes,
      scanned: byScan,
    };
    this.entries.set(key, entry);
    this.cache.admit(entry);
  }

  evict(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.cache.drop(entry);
  }

  clear(): void {
    for (const entry of this.entries.values()) this.cache.drop(entry);
    this.entries.clear();
  }
}
