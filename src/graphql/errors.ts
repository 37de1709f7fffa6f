/**
 * How errors leave the GraphQL door: domain errors with their code and HTTP status, everything
 * else masked (and logged with the request id by the caller of maskError).
 */
import { GraphQLError } from 'graphql';
import { DomainError, type ErrorCode, errorStatus } from '../domain/errors.js';

export function graphQLError(code: ErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: errorStatus[code] } } });
}

export function fromDomainError(error: DomainError): GraphQLError {
  return graphQLError(error.code, error.message);
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
