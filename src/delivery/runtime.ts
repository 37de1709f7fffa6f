/**
 * What the GraphQL resolvers of webhooks, deliveries and subscriptions need beyond the
 * collections: the egress guard (with the configured allow-list) and the content-ready feed.
 * They are attached to the database's collections when the app starts, because the GraphQL
 * context carries the collections (and nothing else of the configuration). A database nobody
 * attached to gets the safe defaults: no allow-list, the default poll interval.
 */
import type { Collections } from '../db/collections.js';
import { ContentReadyFeed } from './content-ready-feed.js';
import { EgressGuard } from './egress.js';

export interface DeliveryRuntime {
  egress: EgressGuard;
  feed: ContentReadyFeed;
}

const runtimes = new WeakMap<Collections, DeliveryRuntime>();

export function attachDeliveryRuntime(
  collections: Collections,
  options: { allowCidrs: readonly string[]; subscriptionPollMs: number },
): DeliveryRuntime {
  const runtime = {
    egress: new EgressGuard(options.allowCidrs),
    feed: new ContentReadyFeed(collections, options.subscriptionPollMs),
  };
  runtimes.set(collections, runtime);
  return runtime;
}

export function deliveryRuntimeOf(collections: Collections): DeliveryRuntime {
  let runtime = runtimes.get(collections);
  if (!runtime) {
    runtime = { egress: new EgressGuard(), feed: new ContentReadyFeed(collections) };
    runtimes.set(collections, runtime);
  }
  return runtime;
}
