/**
 * A database outage leaves the GraphQL door (and so the REST door, which runs through it) as
 * SERVICE_UNAVAILABLE, HTTP 503 with Retry-After, rather than a masked 500: the client may retry,
 * and the operator sees one warning per request, without a stack.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isDatabaseUnavailable } from '../db/outage.js';
import { errorStatus, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import type { Logger } from '../logger.js';

const code = 'SERVICE_UNAVAILABLE';

/** The client's error for `cause` when it is an outage (masking calls it), undefined otherwise. */
export function unavailableError(cause: unknown): GraphQLError | undefined {
  const original = cause instanceof GraphQLError ? (cause.originalError ?? cause) : cause;
  if (!isDatabaseUnavailable(original)) return undefined;
  return new GraphQLError('The service is temporarily unavailable; retry later.', {
    // Kept for the log line below; clients see the message and extensions only.
    originalError: original as Error,
    extensions: { code, http: { status: errorStatus[code] } },
  });
}

/** Sets Retry-After on an answer with such an error and logs the outage once per request. */
export function unavailable(logger: Logger): Plugin {
  const reasons = new WeakMap<Request, string>();
  return {
    onResultProcess({ request, result }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
      const error = result.errors?.find((e) => e.extensions?.code === code);
      if (error) reasons.set(request, error.originalError?.message ?? error.message);
    },
    onResponse({ request, response }) {
      const reason = reasons.get(request);
      if (reason === undefined) return;
      response.headers.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      logger.warn({ reason }, 'database unavailable: answered 503');
    },
  };
}
