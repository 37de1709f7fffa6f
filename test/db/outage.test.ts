/** Which driver errors are an outage, and how a poller backs off during one. */
import {
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, OutageBackoff } from '../../src/db/outage.js';

describe('isDatabaseUnavailable', () => {
  it('recognises unreachable, hung, failing-over and full servers, also as a cause', () => {
    expect(isDatabaseUnavailable(new MongoServerError({ message: 'disk full', code: 14031 }))).toBe(true);
    expect(isDatabaseUnavailable(new MongoNetworkError('connect ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(new MongoNetworkTimeoutError('timed out'))).toBe(true);
    expect(isDatabaseUnavailable(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    const selection = new MongoServerSelectionError('Server selection timed out', {} as never);
    expect(isDatabaseUnavailable(selection)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: selection }))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable(new MongoServerError({ message: 'duplicate key', code: 11000 }))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable('a string')).toBe(false);
  });
});

describe('OutageBackoff', () => {
  it('logs the start and the end once, and doubles the delay up to its cap meanwhile', () => {
    const lines: string[] = [];
    const log = {
      warn: (_: object, m: string) => lines.push(`warn ${m}`),
      info: (_: object, m: string) => lines.push(`info ${m}`),
    };
    const backoff = new OutageBackoff(log, 'the poller', 100, 1_000);
    expect(backoff.delay()).toBe(100);
    expect(backoff.failed(new TypeError('a bug'))).toBe(false);
    expect(backoff.active).toBe(false);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      expect(backoff.failed(new MongoNetworkError('connect ECONNREFUSED'))).toBe(true);
      delays.push(backoff.delay());
    }
    expect(delays).toEqual([200, 400, 800, 1_000, 1_000, 1_000]);
    backoff.succeeded();
    backoff.succeeded();
    expect(backoff.delay()).toBe(100);
    expect(lines).toEqual([
      'warn database unavailable: the poller backs off',
      'info database available again: the poller resumes',
    ]);
  });
});
