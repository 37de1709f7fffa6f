/**
 * A Yoga instance of its own, for tests that need one beside the running app (a broken database,
 * a logger to inspect, their own limits): the defaults the app would give it, with overrides.
 */

import { loadConfig } from '../../src/config.js';
import type { Collections } from '../../src/db/collections.js';
import { EgressGuard } from '../../src/delivery/egress.js';
import { ContentReadyFeed } from '../../src/domain/content-ready-feed.js';
import { CredentialCache } from '../../src/domain/credential-cache.js';
import { LiveChanges } from '../../src/domain/live-changes.js';
import { OutboxHint } from '../../src/domain/outbox.js';
import { ReferenceCache } from '../../src/domain/reference-cache.js';
import { AuthThrottle } from '../../src/graphql/auth-throttle.js';
import { createDirectory } from '../../src/graphql/loaders.js';
import { createGraphQLServer, type GraphQLServer } from '../../src/graphql/yoga.js';
import { createLogger } from '../../src/logger.js';

export function testGraphQLServer(
  collections: Collections,
  overrides: Partial<Parameters<typeof createGraphQLServer>[0]> = {},
): GraphQLServer {
  return createGraphQLServer({
    collections,
    logger: createLogger('silent'),
    corsOrigins: [],
    rateLimits: { limits: { general: 1000, heavy: 1000, download: 1000 }, windowSeconds: 60 },
    admission: { heavyPerCredential: 1000, budgetBytes: 1e12 },
    authThrottle: new AuthThrottle(1_000_000),
    credentials: new CredentialCache(collections, {}, { ttlMs: 0 }),
    directory: createDirectory(collections),
    maxBodyBytes: loadConfig({}).GRAPHQL_MAX_BODY_BYTES,
    services: {
      destinationCheck: new EgressGuard().destinationCheck,
      contentReadyFeed: new ContentReadyFeed(collections),
      liveChanges: new LiveChanges(collections),
      references: new ReferenceCache(collections, 0),
      outboxHint: new OutboxHint(),
      // Media needs the whole database (GridFS): tests of it start the app (test/support/app.ts).
      get media(): never {
        throw new Error('testGraphQLServer has no media store');
      },
      get mediaLinks(): never {
        throw new Error('testGraphQLServer has no media links');
      },
    },
    ...overrides,
  });
}
