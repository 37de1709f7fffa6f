/**
 * Paging a webhook's deliveries while its owner has other webhooks: a cursor belongs to one
 * webhook's list, the others ignore it (first page); a bad cursor is an error of that webhook's
 * list only. Real events: recordings ingested, delivered by the worker to a local receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from '../delivery/support.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';

const owner = 'team admin (Sales)';
const key = keyOf(owner);
const EVENTS = 3;

let t: TestApp;
let rx: Receiver;
let a: string;
let b: string;

beforeAll(async () => {
  [t, rx] = await startDeliveryTest({ DELIVERY_WORKER: 'true', DELIVERY_POLL_MS: '100' });
  a = (await createWebhook(t, owner, `${rx.url}/a`, { triggeredFor: ['MY_RECORDINGS'] })).id;
  b = (await createWebhook(t, owner, `${rx.url}/b`, { triggeredFor: ['MY_RECORDINGS'] })).id;
  for (let i = 0; i < EVENTS; i++) await ingest(t, recordingJson(emailOf(owner)));
  await Promise.all([rx.waitFor(EVENTS, '/a'), rx.waitFor(EVENTS, '/b')]);
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const page = `edges { node { id status } } pageInfo { hasNextPage endCursor }`;
const throughWebhooks = `query($after: String) { webhooks { id deliveries(first: 2, after: $after) { ${page} } } }`;
const throughWebhook = `query($id: ID!, $after: String) { webhook(id: $id) { id deliveries(first: 2, after: $after) { ${page} } } }`;

interface DeliveryPage {
  edges: { node: { id: string; status: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const idsOf = (p: DeliveryPage) => p.edges.map((e) => e.node.id);
const sentTo = (path: string) => rx.at(path).map((r) => String(r.headers['webhook-id']));

async function viaWebhooks(after: string | null) {
  const res = await t.graphql(throughWebhooks, { after }, key);
  expect(res.body.errors).toBeUndefined();
  const of = (id: string): DeliveryPage => res.body.data.webhooks.find((w: any) => w.id === id).deliveries;
  return { a: of(a), b: of(b) };
}

async function viaWebhook(id: string, after: string | null): Promise<DeliveryPage> {
  const res = await t.graphql(throughWebhook, { id, after }, key);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.webhook.deliveries;
}

describe("a webhook's deliveries page by page", () => {
  it('through `webhooks`: A pages to the end with its own cursor, B keeps serving its first page', async () => {
    const first = await viaWebhooks(null);
    expect(first.a.edges).toHaveLength(2);
    expect(first.a.pageInfo.hasNextPage).toBe(true);
    const seen = idsOf(first.a);
    let cursor = first.a.pageInfo.endCursor;
    let pages = 1;
    while (cursor) {
      const next = await viaWebhooks(cursor);
      // B was handed A's cursor, which is not one of its list's: its first page, unchanged.
      expect(next.b).toEqual(first.b);
      seen.push(...idsOf(next.a));
      pages++;
      cursor = next.a.pageInfo.hasNextPage ? next.a.pageInfo.endCursor : null;
    }
    expect(pages).toBe(Math.ceil(EVENTS / 2));
    // Every event delivered to A, exactly once, and none of B's.
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...sentTo('/a')].sort());
    expect(seen.filter((id) => sentTo('/b').includes(id))).toEqual([]);
  });

  it('through `webhook(id:)`: each webhook pages alone, to the end', async () => {
    for (const [id, path] of [
      [a, '/a'],
      [b, '/b'],
    ] as const) {
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const p = await viaWebhook(id, after);
        seen.push(...idsOf(p));
        expect(p.edges.every((e) => e.node.status === 'DELIVERED')).toBe(true);
        after = p.pageInfo.hasNextPage ? p.pageInfo.endCursor : null;
      } while (after);
      expect([...seen].sort()).toEqual([...sentTo(path)].sort());
    }
    // A's cursor given to B's list: B's first page.
    const aFirst = await viaWebhook(a, null);
    expect(await viaWebhook(b, aFirst.pageInfo.endCursor)).toEqual(await viaWebhook(b, null));
  });

  it('`webhook(id:)` is null for an unknown id, a malformed one and somebody else’s', async () => {
    const lookup = 'query($id: ID!) { webhook(id: $id) { id url } }';
    const mine = await t.graphql(lookup, { id: a }, key);
    expect(mine.body.data.webhook).toEqual({ id: a, url: `${rx.url}/a` });
    for (const [id, persona] of [
      ['0123456789abcdef01234567', owner],
      ['nonsense', owner],
      [a, 'account admin'],
    ] as const) {
      const res = await t.graphql(lookup, { id }, keyOf(persona));
      expect(res.body.errors, `${id} as ${persona}`).toBeUndefined();
      expect(res.body.data.webhook, `${id} as ${persona}`).toBeNull();
    }
  });

  it('a cursor that does not decode, or of another kind of list, fails that webhook’s list only', async () => {
    const meetings = await t.graphql('{ meetings(first: 1) { pageInfo { endCursor } } }', {}, key);
    const meetingsCursor = meetings.body.data.meetings.pageInfo.endCursor;
    for (const after of ['garbage!', meetingsCursor]) {
      const res = await t.graphql(
        `query($after: String) { webhooks { id url deliveries(first: 2, after: $after) { ${page} } } }`,
        { after },
        key,
      );
      const webhooks = res.body.data.webhooks as any[];
      // The rest of the answer stays: every webhook with its fields, its list null with an error.
      expect(webhooks.map((w) => w.id)).toEqual(expect.arrayContaining([a, b]));
      for (const w of webhooks) {
        expect(w.url).toBeTruthy();
        expect(w.deliveries).toBeNull();
      }
      expect(res.body.errors).toHaveLength(webhooks.length);
      expect(res.body.errors!.map((e) => e.path)).toEqual(
        webhooks.map((_, i) => ['webhooks', i, 'deliveries']),
      );
      for (const error of res.body.errors!) expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    }
    // Through webhook(id:) too: the webhook stays, its deliveries are null.
    const one = await t.graphql(throughWebhook, { id: a, after: 'garbage!' }, key);
    expect(one.body.data.webhook).toEqual({ id: a, deliveries: null });
    expect(one.body.errors?.[0]).toMatchObject({
      path: ['webhook', 'deliveries'],
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('the worker counts its attempts and their latency in /metrics, and the outbox backlog is empty', async () => {
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? Number.NaN);
    expect(value(/delivery_attempts_total\{kind="webhook_event",outcome="delivered"\} (\d+)/)).toBe(
      2 * EVENTS,
    );
    expect(value(/delivery_latency_seconds_count\{kind="webhook_event"\} (\d+)/)).toBe(2 * EVENTS);
    expect(value(/outbox_messages\{status="pending"\} (\d+)/)).toBe(0);
    expect(value(/outbox_messages\{status="failed"\} (\d+)/)).toBe(0);
  });
});
