/**
 * Fixed-window rate limits per credential, counted in MongoDB so that every server process
 * sharing the database enforces one limit. docs/api/compatibility.md: a general bucket, a "heavy" bucket for
 * requests that read transcripts or summaries, and one for requests of media downloads.
 */
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';

export type Bucket = 'general' | 'heavy' | 'download';

export interface RateLimitPolicy {
  limits: Record<Bucket, number>;
  windowSeconds: number;
}

export interface RateLimitState {
  bucket: Bucket;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  allowed: boolean;
}

/** Counts one request and tells whether it is within the limit. One round trip. */
export async function countRequest(
  collections: Collections,
  policy: RateLimitPolicy,
  credentialId: ObjectId,
  bucket: Bucket,
  now: Date = new Date(),
): Promise<RateLimitState> {
  const window = { limit: policy.limits[bucket], seconds: policy.windowSeconds };
  return {
    bucket,
    ...(await countInWindow(collections, `${bucket}:${credentialId.toHexString()}`, window, now)),
  };
}

export type WindowState = Omit<RateLimitState, 'bucket'>;

/**
 * Counts one request against `key`'s fixed window of `window.seconds` and tells whether it is
 * within `window.limit`: the rate limits above, and the OAuth token endpoint's per app.
 */
export async function countInWindow(
  collections: Collections,
  key: string,
  window: { limit: number; seconds: number },
  now: Date = new Date(),
): Promise<WindowState> {
  const windowMs = window.seconds * 1000;
  const windowStart = Math.floor(now.getTime() / windowMs) * windowMs;
  const windowEnd = new Date(windowStart + windowMs);
  const counter = await collections.rateLimits.findOneAndUpdate(
    { _id: `${key}:${windowStart}` },
    { $inc: { count: 1 }, $setOnInsert: { expiresAt: windowEnd } },
    { upsert: true, returnDocument: 'after' },
  );
  const count = counter?.count ?? 1;
  return {
    limit: window.limit,
    remaining: Math.max(0, window.limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - now.getTime()) / 1000)),
    allowed: count <= window.limit,
  };
}
