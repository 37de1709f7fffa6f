/**
 * What every resolver gets: the collections, who is calling, the request id, the per-request
 * loaders, and the server's long-lived services (made once by the composition root, src/app.ts).
 */
import type { Collections } from '../db/collections.js';
import type { MediaStore } from '../db/media-store.js';
import type { ContentReadyFeed } from '../domain/content-ready-feed.js';
import type { DestinationCheck } from '../domain/deliveries.js';
import type { LiveChanges } from '../domain/live-changes.js';
import type { MediaLinks } from '../domain/media-links.js';
import type { OutboxHint } from '../domain/outbox.js';
import type { ReferenceCache } from '../domain/reference-cache.js';
import type { Viewer } from '../domain/viewer.js';
import { createLoaders, type Loaders } from './loaders.js';

/**
 * What resolvers need beyond the database's collections: the egress guard's check, the live feed,
 * ingestion's lookups, media, the outbox's hint.
 */
export interface ResolverServices {
  /** Where a caller-given URL (webhook, delivery) may point: the egress guard with its allow-list. */
  destinationCheck: DestinationCheck;
  /** Meetings whose content became ready, for live subscriptions. */
  contentReadyFeed: ContentReadyFeed;
  /** Changes as they are logged, for live subscriptions. */
  liveChanges: LiveChanges;
  /** What ingested recordings name (recorders, teams...), kept for a moment. */
  references: ReferenceCache;
  /** Recordings' media files (ingestion stores them). */
  media: MediaStore;
  /** Signs the links of downloads. */
  mediaLinks: MediaLinks;
  /** The app's outbox hint: what a mutation queues due now wakes the app's own delivery worker. */
  outboxHint: OutboxHint;
}

export interface GraphQLContext {
  collections: Collections;
  /** Undefined when no user credential was sent; a bad credential never gets this far (401). */
  viewer: Viewer | undefined;
  /** The ingestion service's token was presented: it may ingest recordings, and read nothing. */
  ingestionService: boolean;
  requestId: string | undefined;
  loaders: Loaders;
  services: ResolverServices;
}

/** The viewer, for resolvers behind the `authenticated` scope (which guarantees it). */
export function viewerOf(context: GraphQLContext): Viewer {
  if (!context.viewer) throw new Error('resolver reached without a viewer: missing authScopes');
  return context.viewer;
}

const notForQueries = (): never => {
  throw new Error('a query-only context has no egress guard, live feed, ingestion, media or outbox hint');
};

/**
 * A context for running a query as `viewer` outside an HTTP request (the bodies the delivery worker
 * builds). Queries use none of the services (egress guard, live feed...): they are absent, loudly.
 */
export function queryContext(
  collections: Collections,
  viewer: Viewer,
  loaders: Loaders = createLoaders(collections, viewer),
): GraphQLContext {
  return {
    collections,
    viewer,
    ingestionService: false,
    requestId: undefined,
    loaders,
    services: {
      destinationCheck: notForQueries,
      get contentReadyFeed(): ContentReadyFeed {
        return notForQueries();
      },
      get liveChanges(): LiveChanges {
        return notForQueries();
      },
      get references(): ReferenceCache {
        return notForQueries();
      },
      get media(): MediaStore {
        return notForQueries();
      },
      get mediaLinks(): MediaLinks {
        return notForQueries();
      },
      get outboxHint(): OutboxHint {
        return notForQueries();
      },
    },
  };
}
