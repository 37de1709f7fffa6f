/**
 * A database outage leaves the GraphQL door (and so the REST door, which runs through it) as
 * SERVICE_UNAVAILABLE, HTTP 503 with Retry-After (in the error's extensions.http, which Yoga and
 * the REST door turn into the header), rather than a masked 500: the client may retry, and the
 * operator sees one warning per request, without a stack.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isDatabaseTimeout, isDatabaseUnavailable } from '../db/outage.js';
import { errorStatus, SHED_RETRY_AFTER_SECONDS, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { graphQLError } from './errors.js';
import type { Overload } from './overload.js';

const code = 'SERVICE_UNAVAILABLE';

/**
 * The client's error for `cause` when it is an outage (masking calls it), undefined otherwise; a
 * timeout our own busy event loop explains is OVERLOADED instead (see overload.ts).
 */
export function unavailableError(cause: unknown, overload: Overload): GraphQLError | undefined {
  const original = cause instanceof GraphQLError ? (cause.originalError ?? cause) : cause;
  if (!isDatabaseUnavailable(original)) return undefined;
  if (isDatabaseTimeout(original) && overload.loopBehind() && overload.databaseReachable())
    return graphQLError(
      'OVERLOADED',
      `The service is too busy to answer in time. Retry in ${SHED_RETRY_AFTER_SECONDS} s.`,
      SHED_RETRY_AFTER_SECONDS,
    );
  return new GraphQLError('The service is temporarily unavailable; retry later.', {
    // Kept for the log line below; clients see the message and extensions only.
    originalError: original as Error,
    extensions: {
      code,
      http: {
        status: errorStatus[code],
        headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      },
    },
  });
}

/** Logs the outage once per request that met it. */
export function unavailable(logger: Logger): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
      const error = result.errors?.find((e) => e.extensions?.code === code);
      if (error)
        logger.warn(
          { reason: error.originalError?.message ?? error.message },
          'database unavailable: answered 503',
        );
    },
  };
}
