/**
 * Serialised content kept in the process, by version. Content is written once and read many
 * times, and a page of transcripts is megabytes: a reader asks the database only which version of
 * each document is current (a few bytes each) and fetches the bytes of the ones it does not hold.
 * A document's version is a digest of its bytes, written in the same update (storedContentOf), so
 * what is served is never older than what the database holds, whichever process wrote it.
 * Bounded by bytes; the least recently used go first.
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

export class ContentCache {
  private readonly entries: LRUCache<string, Entry>;

  /** `maxBytes`: what the kept bytes may add up to (a transcript is ~0.1–0.4 MB). */
  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.content.json.bytes.length),
    });
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
