/**
 * The GraphQL door: graphql-yoga over the Pothos schema, with authentication in the context,
 * operation limits, error masking, CORS and GraphiQL. The REST layer runs its documents through
 * this same Yoga instance, so everything here applies to both doors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Collections } from '../db/collections.js';
import type { ContentCache } from '../domain/content-cache.js';
import type { CredentialCache } from '../domain/credential-cache.js';
import type { Bucket, RateLimitPolicy } from '../domain/rate-limits.js';
import { type PresentedCredential, presentedCredential } from '../domain/viewer.js';
import type { Logger } from '../logger.js';
import { type AdmissionPolicy, admission, type ShedReason } from './admission.js';
import { AuthThrottle } from './auth-throttle.js';
import { type BodyLimits, bodyLimit } from './body-limit.js';
import { compiledExecution } from './compiled-execution.js';
import type { GraphQLContext, ResolverServices } from './context.js';
import { domainErrorOf, fromDomainError, maskedError } from './errors.js';
import { type GraphiQLSetup, graphiqlOptions } from './graphiql.js';
import { exposeHttpStatus } from './http-status-extension.js';
import { type InProcessCaller, inProcessResult } from './in-process-result.js';
import { armor, nestingLimit } from './limits.js';
import { createLoaders, type Directory } from './loaders.js';
import { neverOverloaded, type Overload } from './overload.js';
import { isPublicIntrospection, publicIntrospection } from './public-introspection.js';
import { rateLimit } from './rate-limit.js';
import { schema } from './schema/index.js';
import { subscriptionRootRule } from './subscription-root-rule.js';
import { unavailable, unavailableError } from './unavailable.js';

export interface ServerContext extends InProcessCaller {
  requestId?: string;
  /** The node request and response (Yoga's node adapter adds them; the REST door passes its own). */
  req?: IncomingMessage;
  res?: ServerResponse;
}

export type GraphQLServer = YogaServerInstance<ServerContext, GraphQLContext>;

function withLocation(source: GraphQLError, replacement: GraphQLError): GraphQLError {
  const error = new GraphQLError(replacement.message, {
    nodes: source.nodes,
    source: source.source,
    positions: source.positions,
    path: source.path,
    originalError: replacement.originalError,
    extensions: replacement.extensions,
  });
  // graphql-jit's errors carry their locations without the nodes they came from.
  if (!error.locations && source.locations) Object.assign(error, { locations: source.locations });
  return error;
}

/**
 * The client's to see: parse, validation and variable errors (raised before execution, so without
 * a path) and errors a resolver raised on purpose as GraphQLErrors. Anything else that happened
 * while executing (a failing resolver, a null in a non-null field) is ours, and masked.
 */
function isClientFacing(error: GraphQLError): boolean {
  return error.originalError ? error.originalError instanceof GraphQLError : error.path === undefined;
}

/** Yoga's own refusals of a request, said with what to do instead. */
const yogaRefusals: Record<string, string> = {
  'Must provide query string.':
    'No GraphQL document was sent: POST a JSON body {"query": "...", "variables": {...}} (or GET /graphql?query=...).',
  'GraphQL only supports GET and POST requests.':
    'GraphQL is answered to GET and POST only: POST a JSON body {"query": "..."}.',
  'Can only perform a mutation operation from a POST request.':
    'A mutation changes data, so it is not run for a GET: send it with POST.',
};

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
  /** Refused credentials one source address may send per minute before it is refused outright. */
  authFailuresPerMinute: number;
  /** Largest request body (checked on Content-Length before reading, counted while reading). */
  maxBodyBytes: number;
  /** Largest GraphQL multipart request of a caller that may upload media (the ingestion service). */
  uploads?: Omit<BodyLimits, 'maxBodyBytes'>;
  /** What GraphiQL opens with (the demo admin's key when the demo dataset is loaded). */
  graphiql?: GraphiQLSetup;
}): GraphQLServer {
  const { collections, logger, services } = options;
  const overload = options.overload ?? neverOverloaded;
  const throttle = new AuthThrottle(options.authFailuresPerMinute);
  async function authenticateThrottled(presented: PresentedCredential, source: string) {
    throttle.check(source);
    try {
      return await options.credentials.recognise(presented);
    } catch (error) {
      if (domainErrorOf(error)?.code === 'UNAUTHENTICATED') throttle.failed(source);
      throw error;
    }
  }
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
      publicIntrospection(), // marks introspection-only requests before the context authenticates
      armor(),
      nestingLimit(), // after armor: it wraps armor's token-limited parser
      subscriptionRootRule(),
      rateLimit(collections, options.rateLimits, options.onRateLimited ?? (() => {})),
      admission(options.admission, options.onShed ?? (() => {}), overload.loopBehind),
      compiledExecution({
        onCompiled: (operationName) => logger.debug({ operationName }, 'query compiled'),
        onCompileError: (errors) =>
          logger.warn({ errors }, 'graphql-jit could not compile a query; interpreting it'),
      }),
      exposeHttpStatus(),
      unavailable(logger),
      inProcessResult(),
    ],
    maskedErrors: {
      maskError: (error) => {
        const domain = domainErrorOf(error);
        if (domain)
          return error instanceof GraphQLError
            ? withLocation(error, fromDomainError(domain))
            : fromDomainError(domain);
        const outage = unavailableError(error, overload);
        if (outage) return error instanceof GraphQLError ? withLocation(error, outage) : outage;
        if (error instanceof GraphQLError && isClientFacing(error)) {
          const actionable = yogaRefusals[error.message];
          if (actionable) return new GraphQLError(actionable, { extensions: error.extensions });
          if (error.extensions?.code) return error;
          return withLocation(
            error,
            new GraphQLError(error.message, {
              extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
            }),
          );
        }
        logger.error(
          { err: error instanceof GraphQLError ? (error.originalError ?? error) : error },
          'unexpected GraphQL error',
        );
        return error instanceof GraphQLError ? withLocation(error, maskedError()) : maskedError();
      },
    },
    context: async (initial): Promise<GraphQLContext> => {
      const { request, requestId, req } = initial;
      // Introspection alone never reads the credential: the schema is public, so GraphiQL's Docs
      // load before a key is typed, and a placeholder key is neither refused nor throttled.
      const presented = isPublicIntrospection(initial) ? undefined : presentedCredential(request.headers);
      const caller = presented
        ? await authenticateThrottled(presented, req?.socket.remoteAddress ?? 'unknown')
        : undefined;
      const viewer = caller && 'viewer' in caller ? caller.viewer : undefined;
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
