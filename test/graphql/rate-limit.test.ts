/** Rate limits on the GraphQL door: general and heavy buckets, headers, 429 with Retry-After. */

import { spawn } from 'node:child_process';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectsHeavyField } from '../../src/graphql/rate-limit.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { builtEntry, ensureBuild } from '../support/build.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERAL: '5', RATE_LIMIT_HEAVY: '2' });
});
afterAll(() => t.close());

describe('rate limits', () => {
  it('count per key in the general bucket, with RateLimit headers, then 429 RATE_LIMITED with Retry-After', async () => {
    const key = keyOf('member: team view');
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.graphql('{ viewer { email } }', {}, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      remaining.push(res.headers.get('ratelimit-remaining')!);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await t.graphql('{ viewer { email } }', {}, key);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // another key has its own budget
    expect((await t.graphql('{ viewer { email } }', {}, keyOf('member: multiple teams'))).status).toBe(200);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_rate_limited_total\{bucket="general"\} [1-9]/);
  });

  it('operations selecting transcripts or summaries count in the heavy bucket', async () => {
    const key = keyOf('member: all teams view');
    const heavy = '{ meetings(first: 1) { edges { node { defaultSummary { templateName } } } } }';
    for (let i = 0; i < 2; i++)
      expect((await t.graphql(heavy, {}, key)).headers.get('ratelimit-limit')).toBe('2');
    expect((await t.graphql(heavy, {}, key)).status).toBe(429);
    const light = await t.graphql('{ viewer { email } }', {}, key);
    expect(light.status).toBe(200);
    expect(light.headers.get('ratelimit-limit')).toBe('5');
  });

  it('what counts as heavy follows @include / @skip and fragments', () => {
    const doc = parse(
      'query($t: Boolean!) { meetings { edges { node { ...F } } } } fragment F on Meeting { transcript @include(if: $t) { text } }',
    );
    expect(selectsHeavyField(doc, { t: true })).toBe(true);
    expect(selectsHeavyField(doc, { t: false })).toBe(false);
    expect(
      selectsHeavyField(
        parse('{ meeting(recordingId: 1) { defaultSummary @skip(if: false) { templateName } } }'),
        {},
      ),
    ).toBe(true);
    expect(selectsHeavyField(parse('{ meetings { edges { node { title } } } }'), {})).toBe(false);
    expect(selectsHeavyField(parse('{ meeting(recordingId: 1) { transcriptJson } }'), {})).toBe(true);
  });
});

describe('rate limits across processes', () => {
  it('two server processes on one database together refuse the 61st request of a key in a minute', async () => {
    const [first] = await Promise.all([
      // The child runs with the default window; so must this one, to share its counters.
      startTestApp({ RATE_LIMIT_GENERAL: '60', RATE_LIMIT_HEAVY: '30', RATE_LIMIT_WINDOW_SECONDS: '60' }),
      ensureBuild(),
    ]);
    const child = spawn(process.execPath, [builtEntry('service')], {
      env: {
        ...process.env,
        PORT: '0',
        LOG_LEVEL: 'info',
        MONGODB_URI: first.app.mongoUri,
        SEED_DEMO: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const secondUrl = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`second process did not start:\n${seen}`)), 30_000);
        child.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /"url":"(http:\/\/[^"]+)"/.exec(seen);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const key = keyOf('team admin (Sales)');
      const ask = (base: string) =>
        fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ query: '{ viewer { email } }' }),
        });
      const statuses: number[] = [];
      // A window boundary mid-test would reset the count: start right after one begins if it is close.
      const intoWindow = Date.now() % 60_000;
      if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 100));
      for (let i = 0; i < 60; i++) statuses.push((await ask(i % 2 === 0 ? first.url : secondUrl)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect((await ask(secondUrl)).status).toBe(429);
      expect((await ask(first.url)).status).toBe(429);
    } finally {
      child.kill('SIGTERM');
      await first.close();
    }
  }, 120_000);
});
