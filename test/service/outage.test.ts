/**
 * Database outages through the real server: the database (the embedded engine in its own process)
 * hung with SIGSTOP, resumed with SIGCONT, and killed. Requests to both doors must fail fast with
 * 503 and Retry-After, readiness must say 503 in time, and everything must answer again once the
 * database is back, without restarting the app.
 */

import { type EngineProcess, startEngineProcess } from '@meetings/embedded-mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhook,
  emailOf,
  recordingJson,
  SERVICE_TOKEN,
  startDeliveryTest,
} from '../delivery/support.js';
import { keyOf, type TestApp } from '../support/app.js';
import { postMcp, toolCall } from '../support/mcp.js';
import type { Receiver } from '../support/receiver.js';

const tom = 'team admin (Sales)';
const admin = keyOf('account admin');
let engine: EngineProcess;
let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  engine = await startEngineProcess();
  [t, rx] = await startDeliveryTest({
    MONGODB_URI: engine.uri,
    DELIVERY_WORKER: 'true',
    DELIVERY_POLL_MS: '100',
  });
  await createWebhook(t, tom, `${rx.url}/outage`, { triggeredFor: ['MY_RECORDINGS'] });
}, 60_000);

afterAll(async () => {
  engine?.signal('SIGCONT');
  await Promise.race([t?.close(), new Promise((r) => setTimeout(r, 10_000))]);
  await rx?.close();
  engine?.stop();
}, 30_000);

async function timed<T>(fn: () => Promise<T>): Promise<T & { ms: number }> {
  const started = performance.now();
  const result = await fn();
  return { ...result, ms: Math.round(performance.now() - started) };
}

const meetingsQuery = '{ meetings(first: 1) { edges { node { recordingId } } } }';

function graphqlMeetings() {
  return timed(async () => {
    const res = await t.graphql(meetingsQuery, {}, admin);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: res.body };
  });
}

function restMeetings() {
  return timed(async () => {
    const res = await fetch(`${t.url}/external/v1/meetings?limit=1`, { headers: { 'x-api-key': admin } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  });
}

function readyz() {
  return timed(async () => ({ status: (await fetch(`${t.url}/readyz`)).status }));
}

function expectUnavailable(
  graphql: Awaited<ReturnType<typeof graphqlMeetings>>,
  rest: Awaited<ReturnType<typeof restMeetings>>,
) {
  expect(graphql.status).toBe(503);
  expect(graphql.retryAfter).toMatch(/^\d+$/);
  expect(graphql.body.errors?.[0]?.extensions).toEqual({
    code: 'SERVICE_UNAVAILABLE',
    http: { status: 503 },
  });
  expect(graphql.ms).toBeLessThan(5_000);
  expect(rest.status).toBe(503);
  expect(rest.retryAfter).toMatch(/^\d+$/);
  expect(rest.body).toEqual({ error: expect.any(String) });
  expect(rest.ms).toBeLessThan(5_000);
}

/** Polls until both doors answer 200 again (the driver reconnects by itself). */
async function expectRecovered() {
  const deadline = Date.now() + 20_000;
  let last = '';
  while (Date.now() < deadline) {
    const [graphql, rest, ready] = await Promise.all([graphqlMeetings(), restMeetings(), readyz()]);
    if (graphql.status === 200 && rest.status === 200 && ready.status === 200) {
      expect(graphql.body.data.meetings.edges).toHaveLength(1);
      return;
    }
    last = `${graphql.status} ${rest.status} ${ready.status}`;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not recovered within 20 s (graphql, rest, readyz: ${last})`);
}

describe('a database outage', () => {
  it('hung: both doors answer 503 with Retry-After within 5 s, /readyz 503 within 3 s; 200 again after it resumes', async () => {
    expect((await graphqlMeetings()).status).toBe(200);
    engine.signal('SIGSTOP');
    try {
      const [graphql, rest, ready] = await Promise.all([graphqlMeetings(), restMeetings(), readyz()]);
      console.log(`hung: graphql ${graphql.ms} ms, rest ${rest.ms} ms, readyz ${ready.ms} ms`);
      expectUnavailable(graphql, rest);
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(3_000);
      // Still failing fast once the driver knows the server is gone.
      const [again, restAgain] = await Promise.all([graphqlMeetings(), restMeetings()]);
      console.log(`hung, again: graphql ${again.ms} ms, rest ${restAgain.ms} ms`);
      expectUnavailable(again, restAgain);
    } finally {
      engine.signal('SIGCONT');
    }
    await expectRecovered();
  }, 60_000);

  it('an ingest during the outage is 503; sent again after it, its event is delivered', async () => {
    const recording = recordingJson(emailOf(tom));
    const send = () =>
      timed(async () => {
        const res = await t.graphql(
          'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
          { r: JSON.stringify(recording) },
          `Bearer ${SERVICE_TOKEN}`,
        );
        return { status: res.status, body: res.body };
      });
    engine.signal('SIGSTOP');
    let failed: Awaited<ReturnType<typeof send>>;
    try {
      failed = await send();
    } finally {
      engine.signal('SIGCONT');
    }
    console.log(`hung: ingest ${failed.ms} ms`);
    expect(failed.status).toBe(503);
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(failed.ms).toBeLessThan(5_000);

    await expectRecovered();
    const stored = await send();
    expect(stored.status).toBe(200);
    const [event] = await rx.waitFor(1, '/outage', 20_000);
    expect(JSON.parse(event!.body).recording_id).toBe(recording.recording_id);
  }, 60_000);

  it('killed: both doors answer 503 quickly, /readyz 503', async () => {
    // The authorization server is made (it reads its keys) before the database goes.
    expect((await fetch(`${t.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
    engine.signal('SIGKILL');
    await new Promise((resolve) => engine.child.once('exit', resolve));
    const [graphql, rest, ready] = await Promise.all([graphqlMeetings(), restMeetings(), readyz()]);
    console.log(`killed: graphql ${graphql.ms} ms, rest ${rest.ms} ms, readyz ${ready.ms} ms`);
    expectUnavailable(graphql, rest);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(3_000);
    // Once the driver has marked the server unknown, each request waits for server selection.
    const [again, restAgain] = await Promise.all([graphqlMeetings(), restMeetings()]);
    console.log(`killed, again: graphql ${again.ms} ms, rest ${restAgain.ms} ms`);
    expectUnavailable(again, restAgain);

    // The MCP door, which looks the key up before the SDK runs: 503 with Retry-After too.
    const mcp = await postMcp(t.url, keyOf('member: multiple teams'), toolCall('list_teams'));
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await mcp.json()).toEqual({ error: expect.stringContaining('database is unavailable') });

    // The authorization server: its token endpoint answers RFC 6749's temporarily_unavailable.
    const token = await fetch(`${t.url}/external/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=mga_x&client_secret=y',
    });
    expect(token.status).toBe(503);
    expect(token.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await token.json()).error).toBe('temporarily_unavailable');
    const authorize = await fetch(`${t.url}/external/v1/oauth2/authorize?response_type=code&client_id=mga_x`);
    expect(authorize.status).toBe(503);
    expect(await authorize.text()).toContain('Try again shortly');
  }, 30_000);
});
