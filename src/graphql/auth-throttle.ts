/**
 * Failed authentication, throttled per source address: after `limit` refused credentials within a
 * minute, a source is refused at once (429 with Retry-After) until the minute has passed, without
 * a database lookup. Guessing keys gets slow. Clients sharing an address (behind one NAT) share its
 * count, as with any per-address limit. Counted in this process (no shared state needed).
 */
import { DomainError } from '../domain/errors.js';

const WINDOW_MS = 60_000;
/** Sources remembered at most; the oldest windows are dropped first. */
const MAX_SOURCES = 10_000;

export class AuthThrottle {
  /** Source address → failures in its current window, and when the window started. */
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Refuses a source that failed too often in its window (RATE_LIMITED, with the seconds to wait). */
  check(source: string): void {
    const wait = this.retryAfter(source);
    if (wait === 0) return;
    throw new DomainError(
      'RATE_LIMITED',
      `Too many refused credentials from your address: at most ${this.limit} a minute. Retry in ${wait} s, after checking the key or token you send (the 401 answers say what to check).`,
      wait,
    );
  }

  /** Runs a recognition for `source`: refused at once while throttled; a refusal counts. */
  async guard<T>(source: string, recognise: () => Promise<T>): Promise<T> {
    this.check(source);
    try {
      return await recognise();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') this.failed(source);
      throw error;
    }
  }

  failed(source: string): void {
    const now = this.now();
    const entry = this.failures.get(source);
    if (entry && now - entry.since < WINDOW_MS) {
      entry.count++;
      return;
    }
    this.failures.delete(source);
    this.failures.set(source, { count: 1, since: now });
    if (this.failures.size > MAX_SOURCES) this.failures.delete(this.failures.keys().next().value!);
  }

  /** Seconds until `source` may try again; 0 when it may now. */
  retryAfter(source: string): number {
    const entry = this.failures.get(source);
    if (!entry || entry.count < this.limit) return 0;
    return Math.max(0, Math.ceil((entry.since + WINDOW_MS - this.now()) / 1000));
  }
}
