/**
 * Serialised content kept in the process, by version. Content is written once and read many
 * times, and a page of transcripts is megabytes: a reader asks the database only which version of
 * each document is current (a few bytes each) and fetches the bytes of the ones it does not hold.
 * A document's version is a digest of its bytes, written in the same update (storedContentOf), so
 * what is served is never older than what the database holds, whichever process wrote it.
 * Bounded by bytes; the least recently used go first.
 *
 * Beside the stored bytes it keeps the same content in the shapes GraphQL selections asked for
 * (graphql/content-bytes.ts), by the stored bytes they were made from, so a selection asked again
 * of unchanged content costs a copy. Bounded by bytes too, separately: at most a few shapes of
 * each.
 */
import { LRUCache } from 'lru-cache';
import type { Collection } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { ContentDocs, ContentKind } from '../db/documents.js';
import { type ContentJson, contentByRecording, type Serialised, serialisedContent } from './content.js';
import { RawJson } from './raw-json.js';

interface Entry {
  version: string;
  content: Serialised;
}

/** Shapes kept of one content: a frontend's few queries, not every selection anyone sends. */
const SHAPES_EACH = 4;

const sizeOf = (shapes: Map<string, RawJson>) =>
  Math.max(
    1,
    [...shapes.values()].reduce((total, shaped) => total + shaped.bytes.length, 0),
  );

export class ContentCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly shapes: LRUCache<RawJson, Map<string, RawJson>>;

  /**
   * `maxBytes`: what the kept stored bytes may add up to (a transcript is ~0.1–0.4 MB), and
   * separately what the kept shapes may.
   */
  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.content.json.bytes.length),
      // Its shapes go with it: nothing will ask for them by those bytes again.
      dispose: (entry) => this.shapes.delete(entry.content.json),
    });
    this.shapes = new LRUCache<RawJson, Map<string, RawJson>>({
      maxSize: maxBytes,
      sizeCalculation: sizeOf,
    });
  }

  /**
   * `stored` (bytes this cache gave) in the shape named `shape`: made by `make` the first time,
   * then kept while `stored` is.
   */
  shaped(stored: RawJson, shape: string, make: () => RawJson): RawJson {
    const shapes = this.shapes.get(stored);
    const held = shapes?.get(shape);
    if (held) return held;
    const made = make();
    const kept = [...(shapes ?? new Map<string, RawJson>())].slice(1 - SHAPES_EACH);
    // A new map each time: the cache counts an entry's size when it is set.
    this.shapes.set(stored, new Map([...kept, [shape, made]]));
    return made;
  }

  /** The content of `kind` for the recording, if it is the `version` held. */
  get<K extends ContentKind>(kind: K, recordingId: number, version: string): Serialised<K> | undefined {
    const entry = this.entries.get(`${kind}:${recordingId}`);
    return entry?.version === version ? (entry.content as Serialised<K>) : undefined;
  }

  set(kind: ContentKind, recordingId: number, version: string, content: Serialised): void {
    this.entries.set(`${kind}:${recordingId}`, { version, content });
  }

  /**
   * The serialised content of `recordingIds` of one kind, null where there is none: one query asks
   * which version of each is current, a second fetches only the bytes not held (and keeps them).
   */
  async serialised<K extends ContentKind>(
    collections: Collections,
    kind: K,
    recordingIds: readonly number[],
  ): Promise<(Serialised<K> | null)[]> {
    const collection = collections[kind] as unknown as Collection<ContentDocs[K]>;
    const versions = await contentByRecording(collection, recordingIds, {
      _id: 0,
      recordingId: 1,
      version: 1,
    });
    const held = versions.map((doc, i) =>
      doc?.version ? this.get(kind, recordingIds[i]!, doc.version) : undefined,
    );
    const missing = recordingIds.filter((_, i) => versions[i] && !held[i]);
    const read = missing.length > 0 ? await serialisedContent(collections, kind, missing) : [];
    const fetched = new Map<number, Serialised<K>>();
    read.forEach((found, i) => {
      if (!found) return;
      const { version, ...content } = found;
      // A copy: the bytes read are a slice of the whole reply, which the cache must not keep alive.
      const kept = { ...content, json: new RawJson<ContentJson[K]>(Buffer.from(content.json.bytes)) };
      if (version) this.set(kind, missing[i]!, version, kept);
      fetched.set(missing[i]!, kept);
    });
    return recordingIds.map((id, i) => held[i] ?? fetched.get(id) ?? null);
  }

  /** The bytes held (for tests and metrics). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}
