/**
 * The viewers the worker sends as (a webhook's owner, or who asked for a delivery), kept for a moment. One ingestion fans out to many webhooks: with each
 * owner and their loaders kept for `ttlMs`, and the content loaders shared by every owner in that
 * window, a burst of events costs one lookup per owner and one read of each content kind per
 * recording, not one per event. A deactivated owner, a changed share or new content takes effect
 * within `ttlMs` (1 s by default).
 */
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { Clock } from '../domain/clock.js';
import { viewerFor } from '../domain/content-ready.js';
import type { Viewer } from '../domain/viewer.js';
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

interface Entry {
  viewer: Promise<ViewerWithLoaders | null>;
  expiresAt: number;
}

export class ViewerCache {
  private readonly entries = new Map<string, Entry>();
  private content: { loaders: ContentLoaders; expiresAt: number } | null = null;

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
    return { viewer, loaders: createLoaders(this.collections, viewer, this.sharedContent()) };
  }

  private sharedContent(): ContentLoaders {
    const now = this.clock.now().getTime();
    if (!this.content || this.content.expiresAt <= now)
      this.content = { loaders: createContentLoaders(this.collections), expiresAt: now + this.ttlMs };
    return this.content.loaders;
  }
}
