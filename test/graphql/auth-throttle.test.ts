/**
 * Refused credentials are throttled per client address: after the limit, that address is refused
 * with 429 and Retry-After on both doors, without a lookup, until its minute has passed.
 */

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../src/graphql/auth-throttle.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ AUTH_FAILURES_PER_MINUTE: '5' });
});
afterAll(() => t?.close());

describe('failed authentication throttle', () => {
  it('refuses an address with 429 and Retry-After after 5 wrong keys, on GraphQL and REST', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.graphql('{ viewer { email } }', {}, `mk_wrong_${i}_0123456789abcdef`);
      expect(res.status).toBe(401);
    }
    const sixth = await t.graphql('{ viewer { email } }', {}, 'mk_wrong_6_0123456789abcdef');
    expect(sixth.status).toBe(429);
    expect(sixth.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);

    const rest = await fetch(`${t.url}/external/v1/meetings`, {
      headers: { 'x-api-key': 'mk_wrong_7_0123456789abcdef' },
    });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await rest.json()).toEqual({ error: expect.stringMatching(/Too many refused credentials/) });
  });

  it('throttles that address only: another client address is answered as usual', async () => {
    // The server listens on 127.0.0.1; this client connects from 127.0.0.2 (loopback too).
    const fromElsewhere = (path: string, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${t.url}${path}`, {
          method: body ? 'POST' : 'GET',
          localAddress: '127.0.0.2',
          headers: { 'content-type': 'application/json', 'x-api-key': keyOf('account admin') },
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await fromElsewhere('/graphql', JSON.stringify({ query: '{ viewer { email } }' }))).toBe(200);
    expect(await fromElsewhere('/external/v1/meetings')).toBe(200);
    // and the throttled address is still refused
    expect((await t.graphql('{ viewer { email } }', {}, keyOf('account admin'))).status).toBe(429);
  });

  it('lets the address try again once its minute has passed', () => {
    let now = 0;
    const throttle = new AuthThrottle(2, () => now);
    throttle.failed('10.0.0.1');
    throttle.failed('10.0.0.1');
    expect(() => throttle.check('10.0.0.1')).toThrow(/Retry in 60 s/);
    expect(() => throttle.check('10.0.0.2')).not.toThrow();
    now = 59_000;
    expect(throttle.retryAfter('10.0.0.1')).toBe(1);
    now = 60_000;
    expect(() => throttle.check('10.0.0.1')).not.toThrow();
    throttle.failed('10.0.0.1');
    expect(() => throttle.check('10.0.0.1')).not.toThrow();
  });
});
