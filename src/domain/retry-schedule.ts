/**
 * What an attempt's result means: 2xx delivered; 410 gone (the webhook is disabled); anything else
 * (3xx — redirects are never followed —, other statuses, timeouts, network errors, egress refusals)
 * is retried on the schedule below, after which the message fails. 429 and 503 honour Retry-After:
 * the next attempt comes no sooner than the receiver asked (nor sooner than the schedule says).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delays after the 1st, 2nd, ... failed attempt; 10 attempts in all over about 3.2 days. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each delay is stretched or shrunk by up to this fraction, so retries of many messages spread out. */
export const JITTER = 0.1;

/** Retry-After values beyond this are capped. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;

export interface AttemptResult {
  /** The receiver's status; null when no response came. */
  status: number | null;
  retryAfter: string | null;
  /** Why it did not succeed (null for a 2xx). */
  error: string | null;
  durationMs: number;
}

export type Decision =
  | { outcome: 'delivered' }
  | { outcome: 'gone' }
  | { outcome: 'retry'; delayMs: number }
  | { outcome: 'failed' };

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * SECOND;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** The scheduled delay after `attempts` failed attempts, with jitter; null when no attempt is left. */
export function scheduledDelayMs(attempts: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + (random() * 2 - 1) * JITTER));
}

/** The outcome of the `attempts`-th attempt (1 for the first). */
export function decide(result: AttemptResult, attempts: number, now: Date, random?: () => number): Decision {
  const { status } = result;
  if (status !== null && status >= 200 && status < 300) return { outcome: 'delivered' };
  if (status === 410) return { outcome: 'gone' };
  const scheduled = scheduledDelayMs(attempts, random);
  if (scheduled === null) return { outcome: 'failed' };
  const asked = status === 429 || status === 503 ? retryAfterMs(result.retryAfter, now) : null;
  return { outcome: 'retry', delayMs: Math.max(scheduled, asked ?? 0) };
}
