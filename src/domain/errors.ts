/**
 * Errors the domain raises on purpose. Both doors translate them: GraphQL into
 * `extensions.code` / `extensions.http.status`, REST into a status and `{"error": "..."}`.
 */
export const errorStatus = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** Well-formed, but the thing asked about cannot give it (a download of a recording without media). */
  UNPROCESSABLE: 422,
  /** A change feed's cursor older than what the feed keeps: the client must resync. */
  RESYNC_REQUIRED: 410,
  RATE_LIMITED: 429,
  /** The process sheds work it cannot take on now (load shedding); retry shortly. */
  OVERLOADED: 503,
  /** A dependency (the database) is unavailable: retry later. */
  SERVICE_UNAVAILABLE: 503,
} as const;

/** Retry-After of a SERVICE_UNAVAILABLE answer: long enough for a failover or a restart to show. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** Retry-After of work refused because the service is busy (load shedding): it frees up fast. */
export const SHED_RETRY_AFTER_SECONDS = 1;

export type ErrorCode = keyof typeof errorStatus;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For refusals worth retrying (429, 503): when to, sent as Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}
