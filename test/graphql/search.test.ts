/**
 * `meetings(filter: { search })`: a phrase said once in one transcript is found with the moment
 * it was said, only by callers who may see the meeting; words match by stem in titles and
 * transcripts; relevance order pages like any list; the search combines with other filters; bad
 * searches are clear errors. The oracle test (test/access/every-path.test.ts) checks every persona.
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCollection } from '../../src/db/connection.js';
import { IDS_SENT_AT_MOST } from '../../src/domain/meetings.js';
import { emailOf, ingest, recordingJson, startDeliveryTest } from '../delivery/support.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';

const recorder = keyOf('team admin (Sales)');
const speaker = 'leila.haddad@initech.test';

let t: TestApp;
let rx: Receiver;
/** Says "quokka" only in its title. */
let titled: number;
/** Says it once, in a phrase, in its transcript; newer than `titled`. */
let spoken: number;

const entry = (text: string, timestamp: string, name = 'Ann') => ({
  speaker: { display_name: name, matched_calendar_invitee_email: name === 'Leila' ? speaker : null },
  text,
  timestamp,
});

beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
  const recorderEmail = emailOf('team admin (Sales)');
  ({ recordingId: titled } = await ingest(
    t,
    recordingJson(recorderEmail, {
      title: 'Quokka roadmap',
      transcript: [entry('We went through the roadmap.', '00:00:05')],
    }),
  ));
  ({ recordingId: spoken } = await ingest(
    t,
    recordingJson(recorderEmail, {
      transcript: [
        entry('Good morning everyone.', '00:00:02'),
        entry('Next is the quokka migration plan, which slipped a week.', '00:07:30', 'Leila'),
        entry('Thanks, see you Thursday.', '00:31:00'),
      ],
    }),
  ));
  expect(spoken).toBeGreaterThan(titled);
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const query = `query($filter: MeetingFilter, $orderBy: MeetingOrder, $first: Int, $after: String, $matches: Int) {
  meetings(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
    edges { node { recordingId } matches(first: $matches) { field snippet timestamp speaker } }
    pageInfo { hasNextPage endCursor } } }`;

async function search(key: string, variables: Record<string, unknown>) {
  const res = await t.graphql(query, variables, key);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.meetings as {
    edges: { node: { recordingId: number }; matches: Record<string, string | null>[] | null }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

const ids = (page: Awaited<ReturnType<typeof search>>) => page.edges.map((e) => e.node.recordingId);

async function refusal(variables: Record<string, unknown>, key = recorder) {
  const res = await t.graphql(query, variables, key);
  const error = res.body.errors?.[0];
  expect(res.body.data?.meetings ?? null).toBeNull();
  return {
    status: res.status,
    code: error?.extensions?.code,
    http: error?.extensions?.http?.status,
    message: error?.message,
  };
}

describe('search', () => {
  it('finds a phrase said once, with when and by whom it was said', async () => {
    const page = await search(recorder, { filter: { search: '"Quokka Migration plan"' } });
    expect(ids(page)).toEqual([spoken]);
    expect(page.edges[0]!.matches).toEqual([
      {
        field: 'TRANSCRIPT',
        snippet: 'Next is the quokka migration plan, which slipped a week.',
        timestamp: '00:07:30',
        speaker: 'Leila',
      },
    ]);
  });

  it('finds nothing, and says nothing, for callers who may not see the meeting', async () => {
    for (const persona of ['member: own meetings + CRM', 'external user (Globex)']) {
      const page = await search(keyOf(persona), { filter: { search: 'quokka' } });
      expect(page).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
    }
  });

  it('matches words by stem in titles and transcripts, newest first or best first', async () => {
    expect(ids(await search(recorder, { filter: { search: 'QUOKKAS' } }))).toEqual([spoken, titled]);
    const best = await search(recorder, { filter: { search: 'quokkas' }, orderBy: 'RELEVANCE' });
    // A word in the title counts for more than the same word said once.
    expect(ids(best)).toEqual([titled, spoken]);
    expect(best.edges[0]!.matches).toEqual([
      { field: 'TITLE', snippet: 'Quokka roadmap', timestamp: null, speaker: null },
    ]);
  });

  it('pages in relevance order with cursors, each meeting once', async () => {
    const first = await search(recorder, { filter: { search: 'quokka' }, orderBy: 'RELEVANCE', first: 1 });
    expect(ids(first)).toEqual([titled]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await search(recorder, {
      filter: { search: 'quokka' },
      orderBy: 'RELEVANCE',
      first: 1,
      after: first.pageInfo.endCursor,
    });
    expect(ids(second)).toEqual([spoken]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('combines with the other filters and excludes -words', async () => {
    expect(ids(await search(recorder, { filter: { search: 'quokka', attendees: [speaker] } }))).toEqual([
      spoken,
    ]);
    expect(ids(await search(recorder, { filter: { search: 'quokka -migration' } }))).toEqual([titled]);
    expect(ids(await search(recorder, { filter: { search: 'quokka roadmap' } }))).toEqual([titled]);
    expect(ids(await search(recorder, { filter: { search: 'quokka', teams: ['Engineering'] } }))).toEqual([]);
  });

  it('has no matches on a list that was not searched', async () => {
    const page = await search(recorder, { first: 1 });
    expect(page.edges[0]!.matches).toBeNull();
  });

  it('refuses what it cannot answer with a clear error', async () => {
    const bad = { code: 'BAD_USER_INPUT', http: 400, status: 400 };
    expect(await refusal({ filter: { search: 'the' } })).toMatchObject({
      ...bad,
      message: expect.stringMatching(/nothing to find/),
    });
    expect(await refusal({ orderBy: 'RELEVANCE' })).toMatchObject({
      ...bad,
      message: expect.stringMatching(/filter.search/),
    });
    const newest = await search(recorder, { filter: { search: 'quokka' }, first: 1 });
    expect(
      await refusal({ filter: { search: 'quokka' }, orderBy: 'RELEVANCE', after: newest.pageInfo.endCursor }),
    ).toMatchObject({ ...bad, message: expect.stringMatching(/cursor belongs to another list/) });
    const res = await t.graphql(query, { filter: { search: 'quokka' }, matches: 0 }, recorder);
    expect(res.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/from 1 to 20/),
      extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
    });
  });

  it('a connected app may search but not read matches, which quote transcripts', async () => {
    const app = `Bearer ${keyOf('connected app (Tom)')}`;
    const res = await t.graphql(
      'query { meetings(filter: { search: "quokka" }) { edges { node { recordingId } } } }',
      {},
      app,
    );
    expect(res.body.errors).toBeUndefined();
    expect((await refusal({ filter: { search: 'quokka' } }, app)).message).toMatch(
      /not allowed to include search matches/,
    );
  });

  it('pages a search too broad to send as a list of ids, in both orders', async () => {
    const { collections } = t.app.database;
    const model = (await collections.meetings.findOne({ recordingId: titled }, { projection: { _id: 0 } }))!;
    const count = IDS_SENT_AT_MOST + 5;
    const start = model.recordingStartTime.getTime() - count * 60_000;
    await collections.meetings.insertMany(
      Array.from({ length: count }, (_, i) => ({
        ...model,
        _id: new ObjectId(),
        recordingId: 9_000_000 + i,
        title: `Zebrafish sync ${i}`,
        meetingTitle: null,
        recordingStartTime: new Date(start + i * 60_000),
      })),
    );
    try {
      const newest = await search(recorder, { filter: { search: 'zebrafish' }, first: 3 });
      expect(ids(newest)).toEqual([9_000_000 + count - 1, 9_000_000 + count - 2, 9_000_000 + count - 3]);
      const next = await search(recorder, {
        filter: { search: 'zebrafish' },
        first: 3,
        after: newest.pageInfo.endCursor,
      });
      expect(ids(next)).toEqual([9_000_000 + count - 4, 9_000_000 + count - 5, 9_000_000 + count - 6]);
      expect(next.pageInfo.hasNextPage).toBe(true);
      const best = await search(recorder, {
        filter: { search: 'zebrafish' },
        orderBy: 'RELEVANCE',
        first: 2,
      });
      expect(ids(best)).toEqual([9_000_000 + count - 1, 9_000_000 + count - 2]); // equal scores: newest first
      const hidden = await search(keyOf('member: own meetings + CRM'), { filter: { search: 'zebrafish' } });
      expect(hidden.edges).toEqual([]);
    } finally {
      await collections.meetings.deleteMany({ recordingId: { $gte: 9_000_000 } });
    }
  }, 60_000);

  it('reads each kind of content once for a page, whatever its size', async () => {
    const { commands } = await t.countCommands(() =>
      search(recorder, { filter: { search: 'quokka' }, matches: 5 }),
    );
    const reads = (collection: string) => commands.filter((c) => commandCollection(c) === collection).length;
    // One text query per searched collection, then one read per content kind for the page.
    expect({
      meetings: reads('meetings'),
      transcripts: reads('transcripts'),
      summaries: reads('summaries'),
      actionItems: reads('actionItems'),
    }).toEqual({ meetings: 2, transcripts: 2, summaries: 2, actionItems: 2 });
  });
});
