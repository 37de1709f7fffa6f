/**
 * A transcript a page at a time (Meeting.transcriptEntries): the pages, joined, are the
 * transcript; only the page's lines are read from the database, one query for a page of
 * meetings; cursors belong to their meeting; and the page counts as the transcript does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const admin = keyOf('account admin');
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const pageQuery = `query($id: Int!, $first: Int, $after: String) {
  meeting(recordingId: $id) {
    transcript { text timestamp speaker { displayName } }
    transcriptEntries(first: $first, after: $after) {
      edges { cursor node { text timestamp speaker { displayName } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/** A recording of the admin's with a transcript of more than a few lines. */
async function longTranscript(): Promise<number> {
  const doc = await t.app.database.collections.transcripts.findOne({ 'entries.20': { $exists: true } });
  return doc!.recordingId;
}

describe('Meeting.transcriptEntries', () => {
  it('pages through the whole transcript, in order, and ends', async () => {
    const id = await longTranscript();
    const lines: unknown[] = [];
    let whole: unknown[] = [];
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await t.graphql(pageQuery, { id, first: 7, after }, admin);
      expect(res.body.errors).toBeUndefined();
      const { transcript, transcriptEntries } = res.body.data.meeting;
      whole = transcript;
      lines.push(...transcriptEntries.edges.map((e: { node: unknown }) => e.node));
      if (!transcriptEntries.pageInfo.hasNextPage) break;
      expect(transcriptEntries.edges).toHaveLength(7);
      after = transcriptEntries.pageInfo.endCursor;
    }
    expect(lines).toEqual(whole);
  });

  it('reads only the page from the database: one query for every meeting of a list', async () => {
    const query = `{ meetings(first: 10) { edges { node { recordingId transcriptEntries(first: 3) { edges { node { text } } } } } } }`;
    const { result, commands } = await t.countCommands(() => t.graphql(query, {}, admin));
    expect(result.body.errors).toBeUndefined();
    const edges = result.body.data.meetings.edges as {
      node: { transcriptEntries: { edges: unknown[] } | null };
    }[];
    expect(edges.filter((e) => e.node.transcriptEntries?.edges.length === 3).length).toBeGreaterThan(5);
    const reads = commands.filter((c) => c.commandName === 'find' && c.command.find === 'transcripts');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.command.projection).toEqual({ _id: 0, recordingId: 1, entries: { $slice: [0, 4] } });
  });

  it('a cursor of another meeting starts over; a cursor of another list, or a forged line, is refused', async () => {
    const id = await longTranscript();
    const first = await t.graphql(pageQuery, { id, first: 2 }, admin);
    const cursor = first.body.data.meeting.transcriptEntries.pageInfo.endCursor as string;
    const other = (await t.app.database.collections.transcripts.findOne({ recordingId: { $ne: id } }))!
      .recordingId;
    const elsewhere = await t.graphql(pageQuery, { id: other, first: 2, after: cursor }, admin);
    expect(elsewhere.body.data.meeting.transcriptEntries.edges.map((e: { node: unknown }) => e.node)).toEqual(
      elsewhere.body.data.meeting.transcript.slice(0, 2),
    );

    const teams = await t.graphql('{ teams(first: 1) { pageInfo { endCursor } } }', {}, admin);
    const forged = Buffer.from(JSON.stringify({ l: 'transcript', o: String(id), f: 'x', v: [-3] })).toString(
      'base64url',
    );
    for (const bad of [teams.body.data.teams.pageInfo.endCursor, 'garbage', forged]) {
      const res = await t.graphql(pageQuery, { id, first: 2, after: bad }, admin);
      expect(res.body.errors?.[0]?.extensions?.code, bad).toBe('BAD_USER_INPUT');
    }
    const tooMany = await t.graphql(pageQuery, { id, first: 101 }, admin);
    expect(tooMany.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('counts as the transcript: the heavy bucket, and refused to connected apps in a list', async () => {
    const pageOfOne =
      '{ meetings(first: 1) { edges { node { transcriptEntries(first: 1) { edges { node { text } } } } } } }';
    const limited = await startTestApp({ RATE_LIMIT_HEAVY: '1', RATE_LIMIT_GENERAL: '50' });
    try {
      expect((await limited.graphql(pageOfOne, {}, admin)).body.errors).toBeUndefined();
      const second = await limited.graphql(pageOfOne, {}, admin);
      expect(second.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(
        (await limited.graphql('{ teams(first: 1) { edges { node { name } } } }', {}, admin)).status,
      ).toBe(200);
    } finally {
      await limited.close();
    }
    const app = await t.graphql(pageOfOne, {}, `Bearer ${keyOf('connected app (Tom)')}`);
    expect(app.body.errors?.[0]?.message).toBe('OAuth users are not allowed to include transcript.');
  });
});
