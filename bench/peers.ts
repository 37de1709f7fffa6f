/**
 * Child process: a *peer*, one of the servers users would otherwise pick (`--peers`), serving the
 * service's own executable schema (the Pothos schema, its resolvers and loaders) over the same
 * database: Apollo Server 4, plain Yoga (none of our plugins), or Mercurius with its JIT, as
 * BENCH_PEER says. Each request is authenticated and counted against the rate limit as the service
 * does (two round trips of src/domain), so the peers do the same database work. They serve only the
 * benchmark's GraphQL query, which selects transcripts: it counts in the heavy bucket, as the
 * service counts it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import Fastify from 'fastify';
import { createYoga } from 'graphql-yoga';
import mercurius from 'mercurius';
import { loadConfig, rateLimitPolicyOf } from '../src/config.js';
import { connectDatabase } from '../src/db/connection.js';
import { CredentialCache } from '../src/domain/credential-cache.js';
import { countRequest } from '../src/domain/rate-limits.js';
import { presentedCredential } from '../src/domain/viewer.js';
import { type GraphQLContext, queryContext } from '../src/graphql/context.js';
import { createDirectory, createLoaders } from '../src/graphql/loaders.js';
import { schema } from '../src/graphql/schema/index.js';
import { commandCounter, failToParent, serveParent } from './ipc.js';
import type { Peer } from './report.js';

try {
  const peer = process.env.BENCH_PEER as Peer;
  const config = loadConfig(process.env);
  if (!config.MONGODB_URI) throw new Error('MONGODB_URI is required');
  const database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB, { monitorCommands: true });
  const { collections } = database;
  const policy = rateLimitPolicyOf(config);

  const credentials = new CredentialCache(
    collections,
    {},
    {
      ttlMs: config.CREDENTIAL_CACHE_MS,
      organisationTtlMs: config.DIRECTORY_CACHE_MS,
    },
  );
  const directory = createDirectory(collections, { ttlMs: config.DIRECTORY_CACHE_MS });

  /** The service's context for a request with these headers (the key read, the request counted). */
  async function contextFor(header: (name: string) => string | null): Promise<GraphQLContext> {
    const presented = presentedCredential({ get: header });
    if (!presented) throw new Error('Send an API key.');
    const caller = await credentials.recognise(presented);
    if (!('viewer' in caller)) throw new Error('Send an API key.');
    const state = await countRequest(collections, policy, caller.viewer.credentialId, 'heavy');
    if (!state.allowed) throw new Error('Too many requests.');
    return queryContext(collections, caller.viewer, createLoaders(collections, caller.viewer, { directory }));
  }
  const nodeHeader = (headers: Record<string, string | string[] | undefined>) => (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : null;
  };

  let url: string;
  let close: () => Promise<void>;
  if (peer === 'apollo-server-4') {
    const apollo = new ApolloServer<GraphQLContext>({ schema });
    ({ url } = await startStandaloneServer(apollo, {
      listen: { port: 0, host: '127.0.0.1' },
      context: ({ req }) => contextFor(nodeHeader(req.headers)),
    }));
    close = () => apollo.stop();
  } else if (peer === 'yoga') {
    const yoga = createYoga<object, GraphQLContext>({
      schema,
      graphiql: false,
      logging: false,
      context: ({ request }) => contextFor((name) => request.headers.get(name)),
    });
    const server = createServer(yoga);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
  } else if (peer === 'mercurius-jit') {
    const app = Fastify();
    // jit: 1 compiles a query from its second execution, as graphql-jit does in the service.
    await app.register(mercurius, {
      schema,
      jit: 1,
      context: (request) => contextFor(nodeHeader(request.headers)),
    });
    url = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
    close = () => app.close();
  } else throw new Error(`BENCH_PEER must name a peer, not ${peer}`);

  serveParent({
    info: { url: url.replace(/\/$/, '') },
    ...commandCounter(database),
    stop: async () => {
      await close();
      await database.close();
    },
  });
} catch (error) {
  failToParent(error);
}
