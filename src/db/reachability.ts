/**
 * Whether the database answers, as the driver's own monitor sees it: it sends `hello` to each
 * server on a connection of its own (every heartbeatFrequencyMS, 10 s) and marks a server unknown
 * when that fails, or when an operation meets a refused or reset connection. An operation that
 * merely waited too long does not change it: that may be our own event loop's doing.
 */
import type { MongoClient } from 'mongodb';

/** Returns whether the driver currently knows a server that holds data (false once it lost them all). */
export function watchReachability(client: MongoClient): () => boolean {
  let reachable = true; // connect() succeeded
  client.on('topologyDescriptionChanged', (event) => {
    reachable = event.newDescription.hasDataBearingServers;
  });
  return () => reachable;
}
