/**
 * Keeping a mirror in sync while recordings change under it (docs/api/mirroring.md): two writer
 * processes store, reshare and delete the same recordings at random through the ingestion path,
 * hundreds of changes, while every persona keeps a mirror of its meetings through the change feed
 * (meetingChanges) and another through updated_after polling. At the end each feed mirror equals
 * what the persona sees through /meetings; each recorder heard of every change of its recordings
 * exactly once (the writers' own record of what they changed is the oracle); and the polling
 * mirror holds every meeting the persona sees, as it is, beside those the feed reported removed.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { SERVICE_TOKEN_SHA256 } from '../delivery/support.js';
import { type RestTestApp, startRestTestApp } from '../rest/support.js';
import { exitOf, outputOf } from '../support/processes.js';

const personas = demoPersonas.filter((p) => !p.label.includes('(401)'));
const credentialOf = (p: (typeof personas)[number]) =>
  p.kind === 'connected_app' ? `Bearer ${p.apiKey}` : p.apiKey;
/** The recordings both writers work on: few, so that they often store the same one at once. */
const ids = Array.from({ length: 30 }, (_, i) => 990_001 + i);
const OPERATIONS = 150;

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp({ INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256, DELIVERY_WORKER: 'false' });
});
afterAll(() => r?.close());

const feedQuery = `query($after: String) {
  meetingChanges(after: $after, first: 100) {
    edges { cursor node { recordingId kinds removed meeting { recordingId title updatedAt } } }
    pageInfo { endCursor hasNextPage }
  }
}`;

interface Mirror {
  persona: (typeof personas)[number];
  cursor: string;
  /** recording id → title, kept by the feed. */
  feed: Map<number, string>;
  seen: Set<string>;
  /** recording id → kinds of each change heard of. */
  heard: Map<number, string[][]>;
  removed: Set<number>;
  /** recording id → title, kept by polling updated_after. */
  polled: Map<number, string>;
  updatedAfter: string;
}

async function listed(mirror: Mirror): Promise<Map<number, string>> {
  const { items } = await r.getAll('/meetings', { key: credentialOf(mirror.persona), query: { limit: 100 } });
  return new Map(items.map((m) => [m.recording_id as number, m.title as string]));
}

/** Follows the feed to where it stands, applying each change. */
async function follow(mirror: Mirror): Promise<void> {
  for (;;) {
    const res = await r.t.graphql(feedQuery, { after: mirror.cursor }, credentialOf(mirror.persona));
    expect(res.body.errors, mirror.persona.label).toBeUndefined();
    const { edges, pageInfo } = res.body.data.meetingChanges;
    for (const { cursor, node } of edges) {
      expect(mirror.seen.has(cursor), `${mirror.persona.label}: a change reported twice`).toBe(false);
      mirror.seen.add(cursor);
      mirror.heard.set(node.recordingId, [...(mirror.heard.get(node.recordingId) ?? []), node.kinds]);
      if (node.removed) {
        mirror.feed.delete(node.recordingId);
        mirror.removed.add(node.recordingId);
      } else if (node.meeting) mirror.feed.set(node.recordingId, node.meeting.title);
    }
    mirror.cursor = pageInfo.endCursor;
    if (!pageInfo.hasNextPage) return;
  }
}

/** Polls updated_after from the last updated_at seen, page after page. */
async function poll(mirror: Mirror): Promise<void> {
  const { items } = await r.getAll('/meetings', {
    key: credentialOf(mirror.persona),
    query: { limit: 100, updated_after: mirror.updatedAfter },
  });
  for (const m of items) mirror.polled.set(m.recording_id, m.title);
  if (items.length > 0) mirror.updatedAfter = items.at(-1).updated_at;
}

function writer(seed: number): Promise<{ recordingId: number; changes: string[] }[]> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/support/mirror-writer.ts',
      String(seed),
      String(OPERATIONS),
      ...ids.map(String),
    ],
    {
      env: { ...process.env, MONGODB_URI: r.t.app.mongoUri, MONGODB_DB: r.t.app.database.db.databaseName },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = outputOf(child);
  return exitOf(child).then(({ code }) => {
    expect(code, output.stderr).toBe(0);
    return JSON.parse(output.stdout.trim().split('\n').at(-1)!);
  });
}

describe('a mirror kept while two processes change recordings', () => {
  it('converges through the feed and through updated_after, missing nothing and hearing nothing twice', async () => {
    const start = new Date().toISOString();
    const mirrors: Mirror[] = [];
    for (const persona of personas) {
      const cursor = (await r.t.graphql('{ meetingChangesCursor }', {}, credentialOf(persona))).body.data
        .meetingChangesCursor;
      const mirror: Mirror = {
        persona,
        cursor,
        feed: new Map(),
        seen: new Set(),
        heard: new Map(),
        removed: new Set(),
        polled: new Map(),
        updatedAfter: start,
      };
      mirror.feed = await listed(mirror);
      mirror.polled = new Map(mirror.feed);
      mirrors.push(mirror);
    }

    let writing = true;
    const writers = Promise.all([writer(1), writer(2)]).finally(() => {
      writing = false;
    });
    while (writing) {
      for (const mirror of mirrors) {
        await follow(mirror);
        await poll(mirror);
      }
    }
    const done = (await writers).flat();
    for (const mirror of mirrors) {
      await follow(mirror);
      await poll(mirror);
    }

    const changes = done.filter((d) => d.changes.length > 0);
    expect(changes.length).toBeGreaterThan(150);
    for (const mirror of mirrors) {
      const truth = await listed(mirror);
      expect(mirror.feed, mirror.persona.label).toEqual(truth);
      // Polling sees what is there, as it is; what it cannot see go are the feed's removals.
      for (const [id, title] of truth)
        expect(mirror.polled.get(id), `${mirror.persona.label}: ${id}`).toBe(title);
      for (const id of mirror.polled.keys())
        if (!truth.has(id)) expect(mirror.removed.has(id), `${mirror.persona.label}: ${id}`).toBe(true);
    }
    // A recorder sees each of its recordings before and after every change: it hears of every
    // change, once, in the kinds the writer made.
    for (const mirror of mirrors.filter((m) => m.persona.kind === 'api_key')) {
      const recorded = ids.filter(
        (id) => ['sam', 'tom', 'tina', 'mike'][id % 4] === mirror.persona.email.split('.')[0],
      );
      for (const id of recorded) {
        const made = changes
          .filter((c) => c.recordingId === id)
          .map((c) => c.changes.map((k) => k.toUpperCase()));
        expect([...(mirror.heard.get(id) ?? [])].sort(), `${mirror.persona.label}: recording ${id}`).toEqual(
          made.sort(),
        );
      }
    }
  }, 120_000);
});
