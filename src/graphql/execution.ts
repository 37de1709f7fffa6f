/**
 * What every GraphQL document goes through, whoever sends it: the operation limits and the
 * subscription rule (documentRules), the executor that compiles hot queries (executor), and the
 * masking of errors that are ours (errorMasker). The HTTP door (yoga.ts) puts around them what
 * belongs to requests: the body limit, authentication, rate limits, load shedding. The delivery
 * worker, which builds webhook bodies as their owner with no request at all, runs its documents
 * through createExecutor: these and nothing else, so a body is what the doors would answer.
 */
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { compiledExecution } from './compiled-execution.js';
import { domainErrorOf, fromDomainError, maskedError } from './errors.js';
import { armor, nestingLimit } from './limits.js';
import { neverOverloaded, type Overload } from './overload.js';
import { schema } from './schema/index.js';
import { subscriptionRootRule } from './subscription-root-rule.js';
import { unavailableError } from './unavailable.js';

/** The limits a document must keep to, checked when it is parsed and validated. */
export function documentRules() {
  // nestingLimit after armor: it wraps armor's token-limited parser.
  return [armor(), nestingLimit(), subscriptionRootRule()];
}

/**
 * Runs queries in graphql-jit once they are hot, everything else in graphql-js
 * (compiled-execution.ts); given `contentAsBytes`, content read over HTTP runs over it.
 */
export function executor(logger: Logger, contentAsBytes?: GraphQLSchema): Plugin {
  return compiledExecution({
    contentAsBytes,
    onCompiled: (operationName) => logger.debug({ operationName }, 'query compiled'),
    onCompileError: (errors) =>
      logger.warn({ errors }, 'graphql-jit could not compile a query; interpreting it'),
  });
}

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
export function isClientFacing(error: GraphQLError): boolean {
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

/**
 * What an error becomes in an answer: a domain error its code and status, an outage 503 (or our
 * overload), a client's mistake a BAD_USER_INPUT; anything else is logged with its stack and
 * shown as an internal error without it.
 */
export function errorMasker(logger: Logger, overload: Overload): (error: unknown) => Error {
  return (error) => {
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
  };
}

/** A document parsed and validated once, by the same rules as the doors', to run many times. */
export interface PreparedDocument {
  document: DocumentNode;
}

/** Documents run in-process, for a caller that has its viewer already (no request, no credential). */
export interface Executor {
  /** Parses and validates `source`; throws, naming it `where`, when it breaks a rule (at start-up). */
  prepare(source: string, where: string): PreparedDocument;
  /** The masked result of `prepared` with `contextValue` (its viewer and loaders) and `variables`. */
  run(
    prepared: PreparedDocument,
    contextValue: object,
    variables: Record<string, unknown>,
  ): Promise<ExecutionResult>;
}

export function createExecutor(logger: Logger): Executor {
  // A Yoga instance that serves no HTTP: its envelop pipeline is the doors' without the request part.
  const yoga = createYoga({
    schema,
    logging: false,
    graphiql: false,
    landingPage: false,
    plugins: [...documentRules(), executor(logger)],
    maskedErrors: { maskError: errorMasker(logger, neverOverloaded) },
  });
  return {
    prepare(source, where) {
      const { parse, validate, schema } = yoga.getEnveloped({});
      let document: DocumentNode;
      try {
        document = parse(source);
      } catch (error) {
        throw new Error(`${where} does not parse: ${(error as Error).message}`);
      }
      const problems = validate(schema, document);
      if (problems.length > 0)
        throw new Error(
          `${where} does not validate: ${problems.map((p: { message: string }) => p.message).join('; ')}`,
        );
      return { document };
    },
    async run(prepared, contextValue, variables) {
      const { execute, schema } = yoga.getEnveloped(contextValue);
      return (await execute({
        schema,
        document: prepared.document,
        contextValue,
        variableValues: variables,
      })) as ExecutionResult;
    },
  };
}
