/**
 * Content is stored with its serialised form (the public API's JSON) and served from it. What a
 * user sees must not depend on that: content an older version stored without it answers the same,
 * byte for byte, on both doors; GraphQL's stored-JSON fields carry what REST shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { contentKinds } from '../../src/db/documents.js';
import { keyOf } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const visible = visibleRecordings(dataset, 'alice.moreau@acme.test');
const withEverything = dataset.meetings.find(
  (m) =>
    visible.has(m.recording_id) &&
    m.transcript?.length &&
    m.default_summary &&
    m.action_items?.length &&
    m.highlights?.length &&
    m.calendar_invitees.some((i) =>
      m.transcript!.some((e) => e.speaker.matched_calendar_invitee_email === i.email),
    ),
)!;
const everyInclude = {
  limit: 50,
  include_transcript: true,
  include_summary: true,
  include_action_items: true,
  include_highlights: true,
  include_crm_matches: true,
};
const contentQuery = `query($id: Int!) { meeting(recordingId: $id) {
  calendarInvitees { email matchedSpeakerDisplayName }
  transcript { speaker { displayName matchedCalendarInviteeEmail } text timestamp }
  defaultSummary { templateName markdownFormatted }
  actionItems { description recordingPlaybackUrl assignee { name email team } }
  highlights { type summary startTime endTime text }
  transcriptJson defaultSummaryJson actionItemsJson highlightsJson } }`;

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

/** Every answer the test compares: raw REST bodies and the GraphQL content of one meeting. */
async function answers() {
  const id = withEverything.recording_id;
  const [page, transcript, summary, graphql] = await Promise.all([
    r.get('/meetings', { key: admin, query: everyInclude }),
    r.get(`/recordings/${id}/transcript`, { key: admin }),
    r.get(`/recordings/${id}/summary`, { key: admin }),
    r.t.graphql(contentQuery, { id }, admin),
  ]);
  for (const res of [page, transcript, summary]) expect(res.status).toBe(200);
  expect(graphql.body.errors).toBeUndefined();
  return {
    page: page.text,
    transcript: transcript.text,
    summary: summary.text,
    graphql: graphql.body.data.meeting,
  };
}

describe('content served from its stored JSON', () => {
  it("GraphQL's …Json fields carry what REST shows, and what the typed fields say", async () => {
    const { graphql } = await answers();
    const { items } = await r.getAll('/meetings', { key: admin, query: everyInclude });
    const item = items.find((m: { recording_id: number }) => m.recording_id === withEverything.recording_id);
    expect(graphql.transcriptJson).toEqual(item.transcript);
    expect(graphql.defaultSummaryJson).toEqual(item.default_summary);
    expect(graphql.actionItemsJson).toEqual(item.action_items);
    expect(graphql.highlightsJson).toEqual(item.highlights);
    expect(graphql.transcriptJson).toEqual(withEverything.transcript);
    expect(graphql.transcript.map((e: { text: string }) => e.text)).toEqual(
      withEverything.transcript!.map((e) => e.text),
    );
    expect(graphql.actionItems.map((a: { recordingPlaybackUrl: string }) => a.recordingPlaybackUrl)).toEqual(
      item.action_items.map((a: { recording_playback_url: string }) => a.recording_playback_url),
    );
    const matched = graphql.calendarInvitees.filter(
      (i: { matchedSpeakerDisplayName: string | null }) => i.matchedSpeakerDisplayName,
    );
    expect(matched.length).toBeGreaterThan(0);
  });

  it('content an older version stored without its serialised form answers the same, byte for byte', async () => {
    const before = await answers();
    const { collections } = r.t.app.database;
    let unset = 0;
    for (const kind of contentKinds)
      unset += (await collections[kind].updateMany({}, { $unset: { json: '', speakers: '', version: '' } }))
        .modifiedCount;
    expect(unset).toBeGreaterThan(0);
    const after = await answers();
    expect(after.page).toBe(before.page);
    expect(after.transcript).toBe(before.transcript);
    expect(after.summary).toBe(before.summary);
    expect(after.graphql).toEqual(before.graphql);
  });
});
