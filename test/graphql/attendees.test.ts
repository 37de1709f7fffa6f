/**
 * `meetings(filter: { attendees })` finds a meeting by a transcript speaker's matched email even
 * when that person is no longer among its calendar invitees (the meeting was stored again with
 * other invitees), and never for a caller who may not see the meeting. The oracle test
 * (test/access/every-path.test.ts) covers every persona on the demo data, whose speakers are all
 * invitees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOf, ingest, recordingJson, startDeliveryTest } from '../delivery/support.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';

const recorder = 'team admin (Sales)';
const speaker = 'leila.haddad@initech.test';

let t: TestApp;
let rx: Receiver;
let recordingId: number;

beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
  const recording = recordingJson(emailOf(recorder), {
    transcript: [
      {
        speaker: { display_name: 'Leila', matched_calendar_invitee_email: speaker },
        text: 'I joined late and left early.',
        timestamp: '00:01:00',
      },
    ],
  });
  ({ recordingId } = await ingest(t, recording));
  // Stored again with other invitees: the transcript still names her.
  await t.app.database.collections.meetings.updateOne(
    { recordingId },
    { $pull: { calendarInvitees: { email: speaker } } },
  );
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const byAttendees = `query($attendees: [Email!]) {
  meetings(filter: { attendees: $attendees }, first: 100) { edges { node { recordingId } } } }`;

async function found(key: string, attendees: string[]): Promise<number[]> {
  const res = await t.graphql(byAttendees, { attendees }, key);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.meetings.edges.map((e: { node: { recordingId: number } }) => e.node.recordingId);
}

describe('attendees', () => {
  it('a matched speaker who is not among the invitees is an attendee', async () => {
    const meeting = await t.app.database.collections.meetings.findOne({ recordingId });
    expect(meeting!.calendarInvitees.map((i) => i.email)).not.toContain(speaker);
    expect(await found(keyOf(recorder), [speaker.toUpperCase()])).toEqual([recordingId]);
  });

  it('finds nothing for a caller who may not see the meeting', async () => {
    expect(await found(keyOf('member: own meetings + CRM'), [speaker])).toEqual([]);
    expect(await found(keyOf('external user (Globex)'), [speaker])).toEqual([]);
  });

  it('a malformed email is a bad input', async () => {
    const res = await t.graphql(byAttendees, { attendees: ['not an email'] }, keyOf(recorder));
    expect(res.body.errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED/);
  });
});
