/**
 * What an ingested recording names (its recorder, their organisation, its meeting type and teams)
 * and the owners of the webhooks it fans out to are kept by the server for INGEST_CACHE_MS: a burst
 * by the same recorders does not read them for every recording, what was not found is looked for
 * again at once, and a change shows once the time has passed. A run of increasing recording ids
 * moves the id counter once, not once per recording, and the counter stays ahead of them all.
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCollection } from '../../src/db/connection.js';
import type { TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import {
  createWebhook,
  emailOf,
  ingest,
  recordingJson,
  SERVICE_TOKEN,
  startDeliveryTest,
} from './support.js';

const KEPT_MS = 2_000; // long enough that a slow machine does not see an entry expire between two ingestions
const tom = 'team admin (Sales)';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  [t, rx] = await startDeliveryTest({ INGEST_CACHE_MS: String(KEPT_MS) });
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reads = (commands: Awaited<ReturnType<TestApp['countCommands']>>['commands']) =>
  commands
    .map((c) => commandCollection(c))
    .filter((c) => ['users', 'organisations', 'meetingTypes', 'teams'].includes(c));
const withTeams = (teams: string[]) =>
  recordingJson(emailOf(tom), { sharing: { users: [], teams, all_teams: false } });

async function ingestAnswer(recording: object) {
  return t.graphql(
    'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
    { r: JSON.stringify(recording) },
    `Bearer ${SERVICE_TOKEN}`,
  );
}

describe('what an ingestion names, kept for a moment', () => {
  it('a second recording by the same recorder, sharing and meeting type reads none of them again', async () => {
    const first = await t.countCommands(() => ingest(t, withTeams(['Sales'])));
    expect(reads(first.commands).sort()).toEqual(['organisations', 'teams', 'users']);
    const second = await t.countCommands(() => ingest(t, withTeams(['Sales'])));
    expect(reads(second.commands)).toEqual([]);
  });

  it("the owners of a ready meeting's webhooks are read once for a burst, and each still gets its event", async () => {
    await createWebhook(t, tom, `${rx.url}/owners`, { triggeredFor: ['MY_RECORDINGS'] });
    await ingest(t, recordingJson(emailOf(tom)));
    const next = await t.countCommands(() => ingest(t, recordingJson(emailOf(tom))));
    expect(reads(next.commands)).toEqual([]);
    expect(next.result.eventsQueued).toBe(1);
  });

  it('a run of increasing recording ids moves the id counter once, and ahead of all of them', async () => {
    // The recording id counter's commands (each ingestion also takes a change log position).
    const counters = (commands: Awaited<ReturnType<TestApp['countCommands']>>['commands']) =>
      commands.filter(
        (c) =>
          commandCollection(c) === 'counters' &&
          (c.command.query?._id === 'recordingId' ||
            c.command.updates?.some((u: { q?: { _id?: unknown } }) => u.q?._id === 'recordingId')),
      ).length;
    const first = recordingJson(emailOf(tom));
    const moved = await t.countCommands(() => ingest(t, first));
    const run = await t.countCommands(async () => {
      for (let i = 0; i < 3; i++) await ingest(t, recordingJson(emailOf(tom)));
    });
    expect(counters(moved.commands) + counters(run.commands)).toBeLessThanOrEqual(1);
    const counter = await t.app.database.collections.counters.findOne({ _id: 'recordingId' });
    expect(counter!.value).toBeGreaterThan(first.recording_id + 3);
  });

  it('a team refused as unknown is found as soon as it exists (what was not found is not kept)', async () => {
    const refused = await ingestAnswer(withTeams(['Launch']));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors?.[0]?.message).toContain('Unknown team: Launch');
    const { collections } = t.app.database;
    const recorder = await collections.users.findOne({ email: emailOf(tom) });
    await collections.teams.insertOne({ _id: new ObjectId(), orgId: recorder!.orgId, name: 'Launch' } as any);
    const stored = await ingestAnswer(withTeams(['Launch']));
    expect(stored.body.errors).toBeUndefined();
  });

  it('a recorder moved to another organisation is stored under it once the time has passed', async () => {
    const { collections } = t.app.database;
    const recorder = (await collections.users.findOne({ email: emailOf(tom) }))!;
    const other = (await collections.organisations.findOne({ _id: { $ne: recorder.orgId } }))!;
    await ingest(t, recordingJson(emailOf(tom)));
    await collections.users.updateOne({ _id: recorder._id }, { $set: { orgId: other._id } });
    try {
      await sleep(KEPT_MS + 50);
      const { recordingId } = await ingest(t, recordingJson(emailOf(tom)));
      const meeting = await collections.meetings.findOne({ recordingId });
      expect(meeting!.orgId).toEqual(other._id);
    } finally {
      await collections.users.updateOne({ _id: recorder._id }, { $set: { orgId: recorder.orgId } });
    }
  });
});
