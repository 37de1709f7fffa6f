/**
 * N+1 guard (after Vendure's query-counting e2e test): the driver's commands are counted while a
 * page with every lazy field resolves; pages of 10 and 100 must cost the same. Counted warm: a
 * client calling again soon finds its key (CREDENTIAL_CACHE_MS) and the recorders, teams and
 * meeting types (DIRECTORY_CACHE_MS) already read; the first call pays for them once.
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { commandCollection } from '../../src/db/connection.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const everything = `query($first: Int) { meetings(first: $first) { edges { node {
  recordingId title meetingType sharedWith
  recordedBy { name email team }
  calendarInvitees { email isExternal matchedSpeakerDisplayName }
  transcript { speaker { displayName } text timestamp }
  defaultSummary { templateName markdownFormatted }
  actionItems { description recordingPlaybackUrl assignee { name } }
  highlights { type startTime text }
  crmMatches { contacts { email } companies { name } deals { amount } error }
} } } }`;

const contentCollections = ['transcripts', 'summaries', 'actionItems', 'highlights', 'crmRecords'];

let t: TestApp;
beforeAll(async () => {
  // Caches that outlive the test: the warm call and the counted one may be seconds apart on a busy
  // machine (CI runs two suites at once), and a key read again mid-count would be counted.
  t = await startTestApp({ CREDENTIAL_CACHE_MS: '600000', DIRECTORY_CACHE_MS: '600000' });
  // Give the admin (who sees over 100 meetings) a CRM connection, so CRM records are looked up too.
  const { collections } = t.app.database;
  const admin = await collections.users.findOne({
    email: demoPersonas.find((p) => p.label === 'account admin')!.email,
  });
  const sales = await collections.crmConnections.findOne({ 'owner.kind': 'team' });
  await collections.crmConnections.insertOne({
    ...sales!,
    _id: new ObjectId(),
    owner: { kind: 'user', id: admin!._id },
  });
  const records = await collections.crmRecords.find({ connectionId: sales!._id }).toArray();
  const connection = await collections.crmConnections.findOne({ 'owner.id': admin!._id });
  await collections.crmRecords.insertMany(
    records.map((r) => ({ ...r, _id: new ObjectId(), connectionId: connection!._id })),
  );
});
afterAll(() => t.close());

async function commandsFor(query: string, first: number) {
  await t.graphql(query, { first }, keyOf('account admin'));
  const { result, commands } = await t.countCommands(() =>
    t.graphql(query, { first }, keyOf('account admin')),
  );
  expect(result.body.errors).toBeUndefined();
  expect(result.body.data.meetings.edges).toHaveLength(first);
  return commands.map((c) => `${c.commandName}:${commandCollection(c)}`).sort();
}

describe('batching', () => {
  it('a page of 100 meetings with every lazy field costs the same commands as a page of 10', async () => {
    const ten = await commandsFor(everything, 10);
    const hundred = await commandsFor(everything, 100);
    expect(hundred).toEqual(ten);
    for (const collection of contentCollections) expect(ten).toContain(`find:${collection}`);
    // one query per content kind, not one per meeting
    expect(ten.filter((c) => c === 'find:transcripts')).toHaveLength(1);
    // the rate-limit counter, the page, and one query per content kind (CRM: connection, records)
    expect(ten).toEqual([
      'find:actionItems',
      'find:crmConnections',
      'find:crmRecords',
      'find:highlights',
      'find:meetings',
      'find:summaries',
      'find:transcripts',
      'findAndModify:rateLimits',
    ]);
  });

  it('a page that selects no content field sends no content query', async () => {
    const plain = await commandsFor(
      'query($first: Int) { meetings(first: $first) { edges { node { recordingId title } } } }',
      50,
    );
    for (const collection of contentCollections) expect(plain.join(' ')).not.toContain(collection);
    // the rate-limit counter and the page itself
    expect(plain).toEqual(['find:meetings', 'findAndModify:rateLimits']);
  });
});
