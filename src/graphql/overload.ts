/**
 * What tells our own overload from a database outage. A driver timeout (a socket read or a pool
 * checkout that waited too long) is an outage only if the database is to blame: when the event
 * loop runs far behind, the reply may have sat unread behind our own work, and while the driver's
 * monitor still reaches the database, the answer is OVERLOADED (retry in 1 s), not
 * SERVICE_UNAVAILABLE with an outage warning. The same loop delay makes admission shed content.
 */
export interface Overload {
  /** Whether the event loop runs further behind than ADMISSION_MAX_LOOP_DELAY_MS. */
  loopBehind(): boolean;
  /** Whether the driver's monitor reaches the database (a heartbeat answered since the last failed one). */
  databaseReachable(): boolean;
}

/** Never overloaded: what a GraphQL server without the process's measures assumes. */
export const neverOverloaded: Overload = { loopBehind: () => false, databaseReachable: () => true };
