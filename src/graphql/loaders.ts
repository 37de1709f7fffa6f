/**
 * Per-request DataLoaders: whatever a page of meetings needs beyond the meetings themselves
 * (content, recorders, teams, meeting types, CRM matches), and a page of webhook deliveries their
 * attempts, costs one query per kind for the page.
 */
import DataLoader from 'dataloader';
import { LRUCache } from 'lru-cache';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import {
  type ContentKind,
  type CredentialDoc,
  contentKinds,
  type DeliveryAttemptDoc,
  type MeetingDoc,
  type MeetingTypeDoc,
  type TeamDoc,
  type TranscriptEntryDoc,
  type UserDoc,
} from '../db/documents.js';
import { keysOfUsers } from '../domain/api-keys.js';
import { type Serialised, serialisedContent } from '../domain/content.js';
import type { ContentCache } from '../domain/content-cache.js';
import { type CrmMatches, crmConnectionOf, crmMatchesFor } from '../domain/crm.js';
import { findMeetings } from '../domain/meetings.js';
import type { RawJson } from '../domain/raw-json.js';
import { transcriptWindows } from '../domain/transcript-pages.js';
import type { Viewer } from '../domain/viewer.js';

/** A DataLoader cache shared by every request of the process: entries at most `ttlMs` old. */
export interface SharedCache {
  ttlMs: number;
  /** Entries kept at most per loader (least recently used forgotten first). */
  max?: number;
}

function cacheOf<V>(shared: SharedCache | undefined) {
  // A failed batch (an outage) leaves nothing cached: DataLoader forgets the keys it rejected.
  return shared && shared.ttlMs > 0
    ? { cacheMap: new LRUCache<string, Promise<V>>({ max: shared.max ?? 50_000, ttl: shared.ttlMs }) }
    : {};
}

const hex = (id: ObjectId) => id.toHexString();

function byObjectId<T extends { _id: ObjectId }>(
  find: (ids: ObjectId[]) => Promise<T[]>,
  shared: SharedCache | undefined,
) {
  return new DataLoader<ObjectId, T | null, string>(
    async (ids) => {
      const docs = await find([...ids]);
      const byId = new Map(docs.map((d) => [d._id.toHexString(), d]));
      return ids.map((id) => byId.get(id.toHexString()) ?? null);
    },
    { cacheKeyFn: hex, ...cacheOf<T | null>(shared) },
  );
}

/**
 * What a page shows beside its meetings: recorders, teams, meeting types, each organisation's
 * teams. Display data only: no visibility decision reads it. Made once per process with a
 * `shared` cache, every request uses the same loaders: concurrent requests' lookups go out as one
 * query per kind, and a record read within the last `ttlMs` is not read again (a renamed team
 * shows within `ttlMs`). Without one, it is one request's, like the other loaders.
 */
export function createDirectory(collections: Collections, shared?: SharedCache) {
  return {
    users: byObjectId<UserDoc>((ids) => collections.users.find({ _id: { $in: ids } }).toArray(), shared),
    teams: byObjectId<TeamDoc>((ids) => collections.teams.find({ _id: { $in: ids } }).toArray(), shared),
    meetingTypes: byObjectId<MeetingTypeDoc>(
      (ids) => collections.meetingTypes.find({ _id: { $in: ids } }).toArray(),
      shared,
    ),
    /** Every team of an organisation (for permission listings and a meeting's `sharedWith`). */
    orgTeams: new DataLoader<ObjectId, TeamDoc[], string>(
      async (orgIds) => {
        const teams = await collections.teams
          .find({ orgId: { $in: [...orgIds] } })
          .sort({ name: 1 })
          .toArray();
        return orgIds.map((id) => teams.filter((t) => t.orgId.equals(id)));
      },
      { cacheKeyFn: hex, ...cacheOf<TeamDoc[]>(shared) },
    ),
  };
}

export type Directory = ReturnType<typeof createDirectory>;

/** One loader per content kind, keyed by recording id: its serialised form (null where there is none). */
export type ContentLoaders = { [K in ContentKind]: DataLoader<number, Serialised<K> | null> };

/**
 * Content by recording id. It does not depend on who asks (visibility is decided on the meeting),
 * so the delivery worker shares one set between the owners of a burst of events.
 */
export function createContentLoaders(collections: Collections, cache?: ContentCache): ContentLoaders {
  return Object.fromEntries(
    contentKinds.map((kind) => [
      kind,
      new DataLoader((ids: readonly number[]) =>
        cache ? cache.serialised(collections, kind, ids) : serialisedContent(collections, kind, ids),
      ),
    ]),
  ) as unknown as ContentLoaders;
}

export function createLoaders(
  collections: Collections,
  viewer: Viewer | undefined,
  /**
   * What outlives the request: the worker's content loaders, the process's directory and content
   * cache.
   */
  shared: { content?: ContentLoaders; directory?: Directory; contentCache?: ContentCache } = {},
) {
  const content = shared.content ?? createContentLoaders(collections, shared.contentCache);
  const directory = shared.directory ?? createDirectory(collections);
  return {
    ...content,
    /**
     * `stored` content in the shape named `shape` (a GraphQL selection's): kept beside the stored
     * bytes by the process's content cache, made by `make` for each request without one.
     */
    shaped: (stored: RawJson, shape: string, make: () => RawJson): RawJson =>
      shared.contentCache ? shared.contentCache.shaped(stored, shape, make) : make(),
    /** Meetings by recording id, null for any the viewer may not see (node lookups). */
    meetings: new DataLoader((ids: readonly number[]) =>
      viewer ? findMeetings(collections, viewer, ids) : Promise.resolve(ids.map(() => null)),
    ),
    ...directory,
    /** API keys (not revoked) by user: one query for a page of users. */
    apiKeys: new DataLoader<ObjectId, CredentialDoc[], string>((ids) => keysOfUsers(collections, ids), {
      cacheKeyFn: hex,
    }),
    /** CRM matches as the viewer sees them. */
    crmMatches: new DataLoader<MeetingDoc, CrmMatches, number>(
      async (meetings) => {
        const connection = viewer ? await crmConnectionOf(collections, viewer.user) : null;
        return crmMatchesFor(collections, connection, meetings);
      },
      { cacheKeyFn: (m) => m.recordingId },
    ),
    /**
     * Windows of transcripts (lines `from` on, `count` of them): one query per window for a page
     * of meetings, whose transcripts are usually all asked for from the same line.
     */
    transcriptWindows: new DataLoader<TranscriptWindow, TranscriptEntryDoc[] | null, string>(
      async (windows) => {
        const byWindow = new Map<string, TranscriptWindow[]>();
        for (const w of windows) {
          const key = `${w.from}:${w.count}`;
          byWindow.set(key, [...(byWindow.get(key) ?? []), w]);
        }
        const found = new Map<string, TranscriptEntryDoc[]>();
        await Promise.all(
          [...byWindow.values()].map(async (group) => {
            const { from, count } = group[0]!;
            const lines = await transcriptWindows(
              collections,
              group.map((w) => w.recordingId),
              from,
              count,
            );
            for (const [recordingId, entries] of lines)
              found.set(windowKey({ recordingId, from, count }), entries);
          }),
        );
        return windows.map((w) => found.get(windowKey(w)) ?? null);
      },
      { cacheKeyFn: windowKey },
    ),
    /** The attempts of outbox messages, oldest first: one query for a page of webhook deliveries. */
    deliveryAttempts: new DataLoader<ObjectId, DeliveryAttemptDoc[], string>(
      async (ids) => {
        const attempts = await collections.deliveryAttempts
          .find({ outboxId: { $in: [...ids] } })
          .sort({ attemptedAt: 1, _id: 1 })
          .toArray();
        return ids.map((id) => attempts.filter((a) => a.outboxId.equals(id)));
      },
      { cacheKeyFn: hex },
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** A window of one recording's transcript: lines `from` on, `count` of them. */
export interface TranscriptWindow {
  recordingId: number;
  from: number;
  count: number;
}
const windowKey = (w: TranscriptWindow) => `${w.recordingId}:${w.from}:${w.count}`;
