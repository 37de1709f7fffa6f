/**
 * Errors the domain raises on purpose. Both doors translate them: GraphQL into
 * `extensions.code` / `extensions.http.status`, REST into a status and `{"error": "..."}`.
 */
export const errorStatus = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  /** The process sheds work it cannot take on now (load shedding); retry shortly. */
  OVERLOADED: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}
