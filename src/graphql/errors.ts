/**
 * How errors leave the GraphQL door: domain errors with their code and HTTP status, everything
 * else masked (and logged with the request id by the caller of maskError).
 */
import { GraphQLError } from 'graphql';
import { DomainError, type ErrorCode, errorStatus } from '../domain/errors.js';

/**
 * A client's error with its code and HTTP status; with `retryAfterSeconds`, the answer carries
 * Retry-After too (Yoga sets the headers of `extensions.http`; the REST door forwards them).
 */
export function graphQLError(code: ErrorCode, message: string, retryAfterSeconds?: number): GraphQLError {
  const headers =
    retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } };
  return new GraphQLError(message, { extensions: { code, http: { status: errorStatus[code], ...headers } } });
}

export function fromDomainError(error: DomainError): GraphQLError {
  return graphQLError(error.code, error.message, error.retryAfterSeconds);
}

/** The domain error behind a GraphQL error, if it is one (resolvers throw them unwrapped). */
export function domainErrorOf(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error instanceof GraphQLError && error.originalError) return domainErrorOf(error.originalError);
  return undefined;
}

export const maskedError = () =>
  new GraphQLError('Unexpected error.', {
    extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } },
  });
