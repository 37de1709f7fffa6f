/**
 * Every error a client can meet, with what it means and what to do: the GraphQL door's
 * `extensions.code` values and the REST door's statuses. The README's error table and the home
 * page are rendered from (and tested against) this list, so it is the one place to add a code.
 */
import { errorStatus } from '../domain/errors.js';

export interface GraphQLErrorCode {
  code: string;
  /** `extensions.http.status`, and the HTTP status when it is the first error. */
  status: number;
  meaning: string;
  /** What the caller should do about it. */
  action: string;
}

export interface RestErrorStatus {
  status: number;
  meaning: string;
  action: string;
}

export const graphqlErrorCodes: readonly GraphQLErrorCode[] = [
  {
    code: 'GRAPHQL_PARSE_FAILED',
    status: 400,
    meaning: 'The document is not valid GraphQL syntax.',
    action: 'Fix the syntax at the location given.',
  },
  {
    code: 'GRAPHQL_VALIDATION_FAILED',
    status: 400,
    meaning: 'The document does not match the schema (unknown field or argument, wrong type).',
    action: 'Check the field against the schema (GraphiQL Docs, schema.graphql).',
  },
  {
    code: 'BAD_REQUEST',
    status: 400,
    meaning: 'The HTTP request is not a GraphQL request this server accepts.',
    action: 'Send a POST with a JSON body {"query": ...} (or a GET with ?query=).',
  },
  {
    code: 'BAD_USER_INPUT',
    status: errorStatus.BAD_USER_INPUT,
    meaning: 'An argument or variable value is not valid.',
    action: 'Read the message: it names the argument and what it accepts.',
  },
  {
    code: 'UNAUTHENTICATED',
    status: errorStatus.UNAUTHENTICATED,
    meaning: 'No API key or token was sent, or the one sent is not valid.',
    action: 'Send a valid key as X-Api-Key (or a connected app token as Authorization: Bearer).',
  },
  {
    code: 'FORBIDDEN',
    status: errorStatus.FORBIDDEN,
    meaning: 'Your role or credential may not do this.',
    action: 'Use a key of a user with the role the message names.',
  },
  {
    code: 'NOT_FOUND',
    status: errorStatus.NOT_FOUND,
    meaning: 'The object does not exist, or you may not see it.',
    action: 'Check the id; objects you may not see are reported as missing.',
  },
  {
    code: 'RATE_LIMITED',
    status: errorStatus.RATE_LIMITED,
    meaning: 'Too many requests in the current window.',
    action: 'Wait the seconds in Retry-After, then retry.',
  },
  {
    code: 'OVERLOADED',
    status: errorStatus.OVERLOADED,
    meaning: 'The server is busy producing other large answers.',
    action: 'Retry after Retry-After seconds, or ask for smaller pages.',
  },
  {
    code: 'SERVICE_UNAVAILABLE',
    status: errorStatus.SERVICE_UNAVAILABLE,
    meaning: 'The database is unreachable.',
    action: 'Retry after Retry-After seconds.',
  },
  {
    code: 'INTERNAL_SERVER_ERROR',
    status: 500,
    meaning: 'A bug on our side; the details are in the server log under the request id.',
    action: 'Report it with the X-Request-Id of the answer.',
  },
];

export const restErrorStatuses: readonly RestErrorStatus[] = [];
