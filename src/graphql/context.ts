/** What every resolver gets: the collections, the viewer (when authenticated) and the request id. */
import type { Collections } from '../db/collections.js';
import type { Viewer } from '../domain/viewer.js';
import type { Loaders } from './loaders.js';

export interface GraphQLContext {
  collections: Collections;
  /** Undefined when no credential was sent; a bad credential never gets this far (401). */
  viewer: Viewer | undefined;
  requestId: string | undefined;
  loaders: Loaders;
}

/** The viewer, for resolvers behind the `authenticated` scope (which guarantees it). */
export function viewerOf(context: GraphQLContext): Viewer {
  if (!context.viewer) throw new Error('resolver reached without a viewer: missing authScopes');
  return context.viewer;
}
