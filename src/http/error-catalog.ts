/**
 * Every error a client can meet, with what it means and what to do: the GraphQL door's
 * `extensions.code` values (with the status each carries) and the statuses of the REST door and
 * of the HTTP server in front of both. The "Errors" tables of docs/api/errors.md and the home page are
 * rendered from (and tested against) these lists, so this is the one place to add one.
 * test/service/error-catalog.test.ts provokes each through the service.
 */
import { errorStatus } from '../domain/errors.js';
import { LIMIT_CODE, operationLimits } from '../graphql/limits.js';

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

const limits = operationLimits;

/**
 * A code may come with more than one status (Yoga's BAD_REQUEST: 400, 405, 406, 415): one entry
 * per pair, in the order of docs/api/errors.md's table.
 */
export const graphqlErrorCodes: readonly GraphQLErrorCode[] = [
  {
    code: 'GRAPHQL_PARSE_FAILED',
    status: 400,
    meaning: 'The document is not valid GraphQL syntax.',
    action: 'Fix the syntax at the line and column given in `locations`.',
  },
  {
    code: 'GRAPHQL_VALIDATION_FAILED',
    status: 400,
    meaning:
      "The document does not match the schema (unknown field or argument, wrong type, a subscription's root field under @skip/@include).",
    action: 'Check the fields and arguments against the schema (GraphiQL Docs, schema.graphql).',
  },
  {
    code: LIMIT_CODE,
    status: 400,
    meaning: `The operation is over one of the limits: depth ${limits.maxDepth}, ${limits.maxAliases} aliases, ${limits.maxTokens} tokens, cost ${limits.maxCost}, ${limits.maxDirectives} directives, nesting ${limits.maxNesting}. The message names it.`,
    action:
      'Ask for less (smaller pages, fewer levels or aliases), pass long lists as variables, or split the operation.',
  },
  {
    code: 'OPERATION_RESOLUTION_FAILURE',
    status: 400,
    meaning: 'The document holds several operations and `operationName` names none of them.',
    action: 'Send `operationName` with the name of the operation to run.',
  },
  {
    code: 'BAD_REQUEST',
    status: 400,
    meaning:
      'The HTTP request is not a GraphQL request: no `query`, a body or `variables` that is not JSON, an unknown parameter, a bad Content-Length.',
    action: 'POST a JSON body {"query": ..., "variables": {...}} (or GET with ?query=).',
  },
  {
    code: 'BAD_REQUEST',
    status: 405,
    meaning: 'The method is not GET or POST, or a mutation was sent with GET.',
    action: 'Use POST (the `Allow` header lists the methods).',
  },
  {
    code: 'BAD_REQUEST',
    status: 406,
    meaning: 'The `Accept` header allows no type this operation can be answered in.',
    action:
      'Accept application/graphql-response+json or application/json; text/event-stream for subscriptions.',
  },
  {
    code: 'BAD_REQUEST',
    status: 415,
    meaning: 'The body is not of a content type GraphQL is read from.',
    action: 'Send Content-Type: application/json (or GET with query parameters).',
  },
  {
    code: 'REQUEST_ENTITY_TOO_LARGE',
    status: 413,
    meaning: 'The request body is over the size limit (1 MiB unless the operator changed it).',
    action: 'Send a smaller document and variables, or split the work into several requests.',
  },
  {
    code: 'BAD_USER_INPUT',
    status: errorStatus.BAD_USER_INPUT,
    meaning: 'An argument or variable value is not valid (a page size, a cursor, a URL, a date...).',
    action: 'Read the message: it names the argument and what it accepts.',
  },
  {
    code: 'UNAUTHENTICATED',
    status: errorStatus.UNAUTHENTICATED,
    meaning:
      'No API key or token was sent, or the one sent is refused (unknown, revoked, expired, of a deactivated user, or in the wrong header).',
    action:
      "Send a valid key as X-Api-Key (a connected app's token as Authorization: Bearer); check it was copied whole and is not revoked.",
  },
  {
    code: 'FORBIDDEN',
    status: errorStatus.FORBIDDEN,
    meaning:
      'Your role or credential may not do this (users need an account admin; connected apps may not list content).',
    action: 'Use a key of a user with the role the message names.',
  },
  {
    code: 'NOT_FOUND',
    status: errorStatus.NOT_FOUND,
    meaning: 'The object does not exist, or you may not see it.',
    action: 'Check the id; objects you may not see are reported as missing.',
  },
  {
    code: 'UNPROCESSABLE',
    status: errorStatus.UNPROCESSABLE,
    meaning:
      'The request is well formed but cannot be done to this object (a download of a recording without media).',
    action: 'Check the object first (e.g. Meeting.media is null: there is nothing to download).',
  },
  {
    code: 'RESYNC_REQUIRED',
    status: errorStatus.RESYNC_REQUIRED,
    meaning:
      'A meetingChanges cursor older than the changes the feed keeps (CHANGE_RETENTION_DAYS, 30 by default): some changes after it are gone.',
    action:
      'Resync: take meetingChangesCursor, copy every meeting again (meetings), then follow meetingChanges from that cursor.',
  },
  {
    code: 'RATE_LIMITED',
    status: errorStatus.RATE_LIMITED,
    meaning:
      "Too many requests: in this key's general, heavy (transcript, summary) or download bucket, too many large requests at once, or too many refused keys from your address. The message says which.",
    action: 'Wait the seconds of `Retry-After`, then retry; RateLimit-Remaining shows what is left.',
  },
  {
    code: 'OVERLOADED',
    status: errorStatus.OVERLOADED,
    meaning:
      'The service is busy: producing other large answers, or its event loop runs behind (load shedding).',
    action: 'Retry after `Retry-After` seconds, or ask for smaller pages or fewer content fields.',
  },
  {
    code: 'SERVICE_UNAVAILABLE',
    status: errorStatus.SERVICE_UNAVAILABLE,
    meaning: 'The database does not answer.',
    action: 'Retry after `Retry-After` seconds.',
  },
  {
    code: 'INTERNAL_SERVER_ERROR',
    status: 500,
    meaning:
      'A bug on our side ("Unexpected error."); the details are in the server log under the request id.',
    action: 'Report it with the X-Request-Id of the answer.',
  },
];

/** The REST door's statuses, and those of the HTTP server in front of every path (/graphql too). */
export const restErrorStatuses: readonly RestErrorStatus[] = [
  {
    status: 400,
    meaning:
      'A parameter or body property is not valid (the message names it), a cursor is not one of this list, or the request is not valid HTTP/1.1.',
    action: 'Fix what the message names; see /external/v1/openapi.json for what each endpoint accepts.',
  },
  {
    status: 401,
    meaning:
      'No API key or token was sent, or the one sent is refused (unknown, revoked, expired, of a deactivated user, or in the wrong header).',
    action:
      "Send a valid key as X-Api-Key (a connected app's token as Authorization: Bearer); check it was copied whole and is not revoked.",
  },
  {
    status: 403,
    meaning:
      'Your role or credential may not do this (/users needs an account admin), or a media link is not one the service made (tampered with or cut short).',
    action: "Use a key of a user with the role the message names; use a download's url exactly as given.",
  },
  {
    status: 404,
    meaning: 'No such path, or the recording or webhook does not exist or is not yours to see.',
    action: 'Check the path against /external/v1/openapi.json, and the id.',
  },
  {
    status: 405,
    meaning: 'The path exists, but not with this method (or the method is CONNECT).',
    action: 'Use a method of the `Allow` header.',
  },
  {
    status: 408,
    meaning: 'The request did not arrive in time (headers within 20 s, the whole request within 60 s).',
    action: 'Send the whole request at once; retry on a new connection.',
  },
  {
    status: 410,
    meaning: 'A media link has expired (links work for about 24 hours).',
    action: 'Request a new download: POST /external/v1/recordings/{recording_id}/download.',
  },
  {
    status: 413,
    meaning: 'The body is over 64 KiB (/graphql: over its own limit, 1 MiB by default).',
    action: 'Send a smaller body.',
  },
  {
    status: 415,
    meaning: 'The body is not JSON.',
    action: 'Send Content-Type: application/json with a JSON body.',
  },
  {
    status: 422,
    meaning: 'The recording has no downloadable media.',
    action: 'Check Meeting.media (GraphQL): a recording without media has nothing to download.',
  },
  {
    status: 429,
    meaning:
      "Too many requests: in this key's general, heavy (transcript, summary) or download bucket, too many large requests at once, or too many refused keys from your address. The message says which.",
    action: 'Wait the seconds of `Retry-After`, then retry; RateLimit-Remaining shows what is left.',
  },
  {
    status: 431,
    meaning: 'The request headers are over 16 KiB.',
    action: 'Send fewer or shorter headers.',
  },
  {
    status: 500,
    meaning:
      'A bug on our side ("Internal server error"); the details are in the server log under the request id.',
    action: 'Report it with the X-Request-Id of the answer.',
  },
  {
    status: 503,
    meaning: 'The database does not answer, or the service is busy (load shedding).',
    action: 'Retry after `Retry-After` seconds; smaller pages are refused less often.',
  },
];
