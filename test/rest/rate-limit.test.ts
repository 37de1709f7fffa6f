/** Rate limits are GraphQL's (one Yoga plugin for both doors): REST answers carry its headers and 429s. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyOf } from '../support/app.js';
import { type RestTestApp, startRestTestApp } from './support.js';

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp({ RATE_LIMIT_GENERAL: '3', RATE_LIMIT_HEAVY: '2' });
});
afterAll(() => r.close());

it('general bucket: RateLimit headers on each answer, then 429 {"error"} with Retry-After', async () => {
  const key = keyOf('member: multiple teams');
  const remaining: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await r.get('/teams', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('3');
    remaining.push(res.headers.get('ratelimit-remaining')!);
  }
  expect(remaining).toEqual(['2', '1', '0']);
  const refused = await r.get('/meetings', { key });
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual({ error: expect.stringMatching(/Too many/) });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.headers.get('ratelimit-remaining')).toBe('0');
});

it('the heavy bucket: transcripts, summaries, and /meetings with include_summary or include_transcript', async () => {
  const key = keyOf('member: all teams view');
  const heavy = await r.get('/meetings', { key, query: { include_summary: true } });
  expect(heavy.status).toBe(200);
  expect(heavy.headers.get('ratelimit-limit')).toBe('2');
  const light = await r.get('/meetings', {
    key,
    query: { include_summary: false, include_action_items: true },
  });
  expect(light.status).toBe(200);
  expect(light.headers.get('ratelimit-limit')).toBe('3');
  const id = heavy.body.items[0].recording_id;
  expect((await r.get(`/recordings/${id}/summary`, { key })).status).toBe(200);
  const refused = await r.get(`/recordings/${id}/transcript`, { key });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
});
