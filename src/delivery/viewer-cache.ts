/**
 * The viewers the worker sends as (a webhook's owner, or who asked for a delivery), kept for a
 * moment. One ingestion fans out to many webhooks: with each owner and their loaders kept for
 * `ttlMs`, and the meetings and content loaders shared by every owner in that window (each owner's
 * visibility applied to the shared meetings), a burst of events costs one lookup per owner and one
 * read of the meetings and of each content kind per batch, not one per owner or event. A
 * deactivated owner, a changed share or new content takes effect within `ttlMs` (1 s by default).
 */
import DataLoader from 'dataloader';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { MeetingDoc } from '../db/documents.js';
import type { Clock } from '../domain/clock.js';
import { viewerFor } from '../domain/content-ready.js';
import type { Viewer } from '../domain/viewer.js';
import { canSee } from '../domain/visibility.js';
import {
  type ContentLoaders,
  createContentLoaders,
  createLoaders,
  type Loaders,
} from '../graphql/loaders.js';

/** A viewer with loaders of their own: visibility applies to whatever they load. */
export interface ViewerWithLoaders {
  viewer: Viewer;
  /** Loaders as this viewer: visibility applies to whatever they load. */
  loaders: Loaders;
}

/** Meetings by recording id, whoever asks (null where none exists). */
type MeetingsById = DataLoader<number, MeetingDoc | null>;

interface Entry {
  viewer: Promise<ViewerWithLoaders | null>;
  expiresAt: number;
}

export class ViewerCache {
  private readonly entries = new Map<string, Entry>();
  private shared: { content: ContentLoaders; meetings: MeetingsById; expiresAt: number } | null = null;

  constructor(
    private readonly collections: Collections,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
  ) {}

  /** The active user `userId` with their organisation, or null when they are not active any more. */
  get(userId: ObjectId): Promise<ViewerWithLoaders | null> {
    const now = this.clock.now().getTime();
    const key = userId.toHexString();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.viewer;
    if (this.entries.size > 1000)
      for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    const viewer = this.load(userId);
    this.entries.set(key, { viewer, expiresAt: now + this.ttlMs });
    // A failed lookup is not remembered.
    viewer.catch(() => this.entries.delete(key));
    return viewer;
  }

  private async load(userId: ObjectId): Promise<ViewerWithLoaders | null> {
    const user = await this.collections.users.findOne({ _id: userId });
    const org = user && (await this.collections.organisations.findOne({ _id: user.orgId }));
    if (user?.status !== 'active' || !org) return null;
    const viewer = viewerFor(user, org);
    const { content, meetings } = this.sharedLoaders();
    const loaders = createLoaders(this.collections, viewer, { content });
    // The meetings everyone's loaders read, as this viewer may see them (as findMeetings does).
    loaders.meetings = new DataLoader(async (ids: readonly number[]) =>
      (await meetings.loadMany(ids)).map((m) => (m && !(m instanceof Error) && canSee(viewer, m) ? m : null)),
    );
    return { viewer, loaders };
  }

  private sharedLoaders() {
    const now = this.clock.now().getTime();
    if (!this.shared || this.shared.expiresAt <= now)
      this.shared = {
        content: createContentLoaders(this.collections),
        meetings: new DataLoader(async (ids: readonly number[]) => {
          const found = await this.collections.meetings.find({ recordingId: { $in: [...ids] } }).toArray();
          const byId = new Map(found.map((m) => [m.recordingId, m]));
          return ids.map((id) => byId.get(id) ?? null);
        }),
        expiresAt: now + this.ttlMs,
      };
    return this.shared;
  }
}
