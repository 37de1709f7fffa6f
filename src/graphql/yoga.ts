/**
 * The GraphQL door: graphql-yoga over the Pothos schema, with what every document goes through
 * (execution.ts: operation limits, the executor, error masking) and what belongs to requests:
 * the body limit, authentication in the context, rate limits, load shedding, CORS and GraphiQL.
 * The REST layer runs its documents through this same Yoga instance, so everything here applies
 * to both doors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Collections } from '../db/collections.js';
import type { ContentCache } from '../domain/content-cache.js';
import type { CredentialCache } from '../domain/credential-cache.js';
import { DomainError } from '../domain/errors.js';
import type { Bucket, RateLimitPolicy } from '../domain/rate-limits.js';
import {
  type DoorName,
  opensDoor,
  type PresentedCredential,
  presentedCredential,
  wrongDoorMessage,
} from '../domain/viewer.js';
import type { Logger } from '../logger.js';
import { type AdmissionPolicy, admission, type ShedReason } from './admission.js';
import type { AuthThrottle } from './auth-throttle.js';
import { type BodyLimits, bodyLimit } from './body-limit.js';
import { contentAsBytes, splicedAnswers } from './content-bytes.js';
import type { GraphQLContext, ResolverServices } from './context.js';
import { domainErrorOf } from './errors.js';
import { documentRules, errorMasker, executor, isClientFacing } from './execution.js';
import { type GraphiQLSetup, graphiqlOptions } from './graphiql.js';
import { exposeHttpStatus } from './http-status-extension.js';
import { type InProcessCaller, inProcessResult } from './in-process-result.js';
import { incrementalDelivery } from './incremental-delivery.js';
import { createLoaders, type Directory } from './loaders.js';
import { neverOverloaded, type Overload } from './overload.js';
import { isPublicIntrospection, publicIntrospection } from './public-introspection.js';
import { rateLimit } from './rate-limit.js';
import { schema } from './schema/index.js';
import { type TrustedDocuments, trustedDocuments } from './trusted-documents.js';
import { unavailable, unavailableError } from './unavailable.js';

export interface ServerContext extends InProcessCaller {
  requestId?: string;
  /** The node request and response (Yoga's node adapter adds them; the REST door passes its own). */
  req?: IncomingMessage;
  res?: ServerResponse;
  /** The door a request came through, when not REST or GraphQL: what a token must be issued for. */
  door?: DoorName;
}

export type GraphQLServer = YogaServerInstance<ServerContext, GraphQLContext>;

/** The execution schema answering content as bytes (content-bytes.ts), made once per process. */
const bytesSchema = contentAsBytes(schema);

export function createGraphQLServer(options: {
  collections: Collections;
  logger: Logger;
  corsOrigins: string[];
  rateLimits: RateLimitPolicy;
  credentials: CredentialCache;
  directory: Directory;
  /** Content bytes kept by version across requests; without one, every page reads them. */
  contentCache?: ContentCache;
  services: ResolverServices;
  admission: AdmissionPolicy;
  onShed?: (reason: ShedReason) => void;
  /** The process's event-loop delay and the database's reachability (default: never overloaded). */
  overload?: Overload;
  onRateLimited?: (bucket: Bucket) => void;
  /** Refused credentials per source address (shared with the MCP door, which recognises them too). */
  authThrottle: AuthThrottle;
  /** Largest request body (checked on Content-Length before reading, counted while reading). */
  maxBodyBytes: number;
  /** Largest GraphQL multipart request of a caller that may upload media (the ingestion service). */
  uploads?: Omit<BodyLimits, 'maxBodyBytes'>;
  /** What GraphiQL opens with (the demo admin's key when the demo dataset is loaded). */
  graphiql?: GraphiQLSetup;
  /** Operations sent by id (GRAPHQL_TRUSTED_DOCUMENTS), and whether they are all it runs. */
  trustedDocuments?: TrustedDocuments;
}): GraphQLServer {
  const { collections, logger, services } = options;
  const overload = options.overload ?? neverOverloaded;
  const authenticateThrottled = (presented: PresentedCredential, source: string) =>
    options.authThrottle.guard(source, () => options.credentials.recognise(presented));
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // Yoga's default is 25 MB, read and parsed before the context authenticates anyone; ours is
    // bodyLimit below, which lets the ingestion service alone upload media.
    maxRequestBodySize: false,
    landingPage: false,
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      // Yoga reports a client's bad request (a syntax error, an unknown field, a refused key) as an
      // error; for us it is not one. An outage is logged once by the unavailable plugin. Anything
      // else is an error, with its message and stack.
      error: (...args) =>
        args.every(
          (a) =>
            domainErrorOf(a) ||
            (a instanceof GraphQLError && isClientFacing(a)) ||
            unavailableError(a, overload),
        )
          ? logger.debug({ errors: args.map((a) => (a as Error).message) }, 'graphql request refused')
          : logger.error({ err: args.find((a) => a instanceof Error), args: args.map(String) }, 'yoga'),
    },
    cors:
      options.corsOrigins.length > 0
        ? {
            origin: options.corsOrigins,
            methods: ['GET', 'POST', 'OPTIONS'],
            credentials: false, // API keys travel in headers, never cookies
            allowedHeaders: ['content-type', 'x-api-key', 'authorization', 'x-request-id'],
            exposedHeaders: [
              'x-request-id',
              'ratelimit-limit',
              'ratelimit-remaining',
              'ratelimit-reset',
              'retry-after',
            ],
            maxAge: 600,
          }
        : false,
    graphiql: graphiqlOptions(options.graphiql ?? {}),
    // GraphiQL bundled into the page (no CDN needed), loaded when it is first asked for: its 9 MB of
    // script cost a process ~80 MB of memory, which one nobody opens GraphiQL on need not carry.
    renderGraphiQL: async (graphiql) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(graphiql),
    plugins: [
      bodyLimit({
        maxBodyBytes: options.maxBodyBytes,
        ...(options.uploads ?? { maxUploadBytes: options.maxBodyBytes, mayUpload: () => false }),
      }),
      ...(options.trustedDocuments ? trustedDocuments(options.trustedDocuments) : []),
      ...incrementalDelivery(), // @defer/@stream: their rules, multipart/mixed and event-stream answers
      publicIntrospection(), // marks introspection-only requests before the context authenticates
      ...documentRules(),
      rateLimit(collections, options.rateLimits, options.onRateLimited ?? (() => {})),
      admission(options.admission, options.onShed ?? (() => {}), overload.loopBehind),
      executor(logger, bytesSchema),
      exposeHttpStatus(),
      unavailable(logger),
      splicedAnswers(),
      inProcessResult(),
    ],
    maskedErrors: { maskError: errorMasker(logger, overload) },
    context: async (initial): Promise<GraphQLContext> => {
      const { request, requestId, req } = initial;
      // Introspection alone never reads the credential: the schema is public, so GraphiQL's Docs
      // load before a key is typed, and a placeholder key is neither refused nor throttled.
      const presented = isPublicIntrospection(initial) ? undefined : presentedCredential(request.headers);
      const caller = presented
        ? await authenticateThrottled(presented, req?.socket.remoteAddress ?? 'unknown')
        : undefined;
      const viewer = caller && 'viewer' in caller ? caller.viewer : undefined;
      const door = initial.door ?? 'api';
      if (viewer && !opensDoor(viewer, door))
        throw new DomainError('UNAUTHENTICATED', wrongDoorMessage(door));
      return {
        collections,
        viewer,
        ingestionService: caller !== undefined && 'ingestionService' in caller,
        requestId,
        loaders: createLoaders(collections, viewer, {
          directory: options.directory,
          contentCache: options.contentCache,
        }),
        services,
      };
    },
  });
}
