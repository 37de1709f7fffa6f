/** Authentication, authorisation, error codes and operation limits through the real endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const app = `Bearer ${keyOf('connected app (Tom)')}`;

function expectError(res: Awaited<ReturnType<TestApp['graphql']>>, code: string, status: number) {
  expect(res.status).toBe(status);
  expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
  expect(res.body.errors?.[0]?.extensions?.http?.status).toBe(status);
}

describe('authentication', () => {
  it('no credential: UNAUTHENTICATED, 401', async () => {
    expectError(await t.graphql('{ viewer { email } }'), 'UNAUTHENTICATED', 401);
  });

  it.each([
    'deactivated user (401)',
    'invited user (401)',
    'revoked key (401)',
  ])('%s: UNAUTHENTICATED', async (label) => {
    expectError(await t.graphql('{ viewer { email } }', {}, keyOf(label)), 'UNAUTHENTICATED', 401);
  });

  it('an unknown key, or an API key sent as a Bearer token: UNAUTHENTICATED', async () => {
    expectError(
      await t.graphql('{ viewer { email } }', {}, 'mk_not_a_real_key_at_all'),
      'UNAUTHENTICATED',
      401,
    );
    expectError(
      await t.graphql('{ viewer { email } }', {}, `Bearer ${keyOf('account admin')}`),
      'UNAUTHENTICATED',
      401,
    );
  });

  it('introspection needs no key (GraphiQL loads the schema before you paste one)', async () => {
    const res = await t.graphql('{ __schema { queryType { name } } }');
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  it('a valid key identifies the viewer', async () => {
    const res = await t.graphql(
      '{ viewer { email permissions { settingsAccess { level } } } }',
      {},
      keyOf('account admin'),
    );
    expect(res.body.data.viewer.permissions.settingsAccess.level).toBe('ACCOUNT_ADMIN');
  });
});

describe('authorisation', () => {
  it('users is for account admins: FORBIDDEN, 403 for anyone else', async () => {
    expectError(
      await t.graphql('{ users { edges { node { email } } } }', {}, keyOf('team admin (Sales)')),
      'FORBIDDEN',
      403,
    );
    const admin = await t.graphql(
      '{ users(first: 100) { edges { node { email status } } } }',
      {},
      keyOf('account admin'),
    );
    expect(admin.body.errors).toBeUndefined();
    const statuses = admin.body.data.users.edges.map((e: { node: { status: string } }) => e.node.status);
    expect(statuses).toEqual([...statuses].sort());
    expect(new Set(statuses)).toEqual(new Set(['ACTIVE', 'DEACTIVATED', 'INVITED']));
  });

  it('connected apps may not list transcripts or summaries, even behind aliases and fragments', async () => {
    const summary = await t.graphql(
      '{ meetings { edges { node { s: defaultSummary { markdownFormatted } } } } }',
      {},
      app,
    );
    expectError(summary, 'BAD_USER_INPUT', 400);
    expect(summary.body.errors?.[0]?.message).toBe('OAuth users are not allowed to include summary.');
    const transcript = await t.graphql(
      'query { meetings { edges { node { ...T } } } } fragment T on Meeting { transcript { text } }',
      {},
      app,
    );
    expect(transcript.body.errors?.[0]?.message).toBe('OAuth users are not allowed to include transcript.');
    // Their stored JSON too.
    for (const [field, part] of [
      ['transcriptJson', 'transcript'],
      ['defaultSummaryJson', 'summary'],
    ]) {
      const twin = await t.graphql(`{ meetings { edges { node { ${field} } } } }`, {}, app);
      expect(twin.body.errors?.[0]?.message).toBe(`OAuth users are not allowed to include ${part}.`);
    }
  });

  it('connected apps may read one recording’s transcript and list meetings without content', async () => {
    const list = await t.graphql(
      '{ meetings(first: 1) { edges { node { recordingId actionItems { description } } } } }',
      {},
      app,
    );
    expect(list.body.errors).toBeUndefined();
    const id = list.body.data.meetings.edges[0].node.recordingId;
    const one = await t.graphql(
      'query($id: Int!) { meeting(recordingId: $id) { transcript { text } } }',
      { id },
      app,
    );
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.meeting).not.toBeNull();
  });
});

describe('bad input', () => {
  const admin = keyOf('account admin');

  it('page sizes outside 1..100 are BAD_USER_INPUT', async () => {
    expectError(
      await t.graphql('{ meetings(first: 101) { edges { cursor } } }', {}, admin),
      'BAD_USER_INPUT',
      400,
    );
    expectError(
      await t.graphql('{ meetings(first: 0) { edges { cursor } } }', {}, admin),
      'BAD_USER_INPUT',
      400,
    );
  });

  it('a forged cursor, or one made for other filters, is BAD_USER_INPUT', async () => {
    expectError(
      await t.graphql('{ meetings(after: "garbage!") { edges { cursor } } }', {}, admin),
      'BAD_USER_INPUT',
      400,
    );
    const injected = Buffer.from(JSON.stringify({ l: 'meetings', f: 'x', v: [{ $gt: '' }, 1] })).toString(
      'base64url',
    );
    expectError(
      await t.graphql(`{ meetings(after: "${injected}") { edges { cursor } } }`, {}, admin),
      'BAD_USER_INPUT',
      400,
    );
    const page = await t.graphql('{ meetings(first: 1) { pageInfo { endCursor } } }', {}, admin);
    const cursor = page.body.data.meetings.pageInfo.endCursor;
    const other = await t.graphql(
      'query($after: String) { meetings(after: $after, filter: { domainsType: ONLY_INTERNAL }) { edges { cursor } } }',
      { after: cursor },
      admin,
    );
    expectError(other, 'BAD_USER_INPUT', 400);
    expect(other.body.errors?.[0]?.message).toMatch(/other filters/);
  });

  it('a date without a zone, or a bad email, is BAD_USER_INPUT', async () => {
    const date = await t.graphql(
      '{ meetings(filter: { createdAfter: "2026-01-01T00:00:00" }) { edges { cursor } } }',
      {},
      admin,
    );
    expect(date.status).toBe(400);
    expect(date.body.errors?.[0]?.extensions?.code).toBeDefined();
    const email = await t.graphql(
      'query($e: [Email!]) { meetings(filter: { recordedBy: $e }) { edges { cursor } } }',
      { e: ['nope'] },
      admin,
    );
    expect(email.status).toBe(400);
  });

  it('syntax and validation errors have a code', async () => {
    const syntax = await t.graphql('{ meetings { ', {}, admin);
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors?.[0]?.extensions?.code).toBeTruthy();
    const unknown = await t.graphql('{ nope }', {}, admin);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.extensions?.code).toBeTruthy();
  });
});

describe('operation limits', () => {
  const admin = keyOf('account admin');

  it('the largest legitimate query passes: 100 meetings with every content field', async () => {
    const res = await t.graphql(
      `{ meetings(first: 100) { edges { cursor node { id recordingId title meetingTitle meetingType url shareUrl createdAt
        scheduledStartTime scheduledEndTime recordingStartTime recordingEndTime calendarInviteesDomainsType sharedWith
        transcriptLanguage meetingUrl
        calendarInvitees { name email emailDomain isExternal matchedSpeakerDisplayName }
        recordedBy { name email emailDomain team }
        transcript { speaker { displayName matchedCalendarInviteeEmail } text timestamp }
        defaultSummary { templateName markdownFormatted }
        actionItems { description userGenerated completed recordingTimestamp recordingPlaybackUrl assignee { name email team } }
        highlights { type summary startTime endTime text }
        crmMatches { contacts { name email recordUrl } companies { name recordUrl } deals { name amount recordUrl } error }
      } } pageInfo { hasNextPage endCursor } } }`,
      {},
      admin,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.meetings.edges).toHaveLength(100);
  });

  it('too deep, too many aliases, too many tokens: OPERATION_LIMIT_EXCEEDED before execution, naming the limit', async () => {
    const tooDeep = `{ ${'... on Query { '.repeat(12)}viewer { email }${' }'.repeat(12)} }`;
    const depth = await t.graphql(tooDeep, {}, admin);
    expectError(depth, 'OPERATION_LIMIT_EXCEEDED', 400);
    expect(depth.body.errors?.[0]?.message).toMatch(/more than 10 levels deep \(the depth limit\)/);
    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: viewer { email }`).join(' ')} }`;
    const aliased = await t.graphql(aliases, {}, admin);
    expectError(aliased, 'OPERATION_LIMIT_EXCEEDED', 400);
    expect(aliased.body.errors?.[0]?.message).toMatch(/more than 15 aliases \(the alias limit\)/);
    expect(aliased.body.errors?.[0]?.message).not.toMatch(/Syntax Error/);
    const tokens = `{ viewer { ${'email '.repeat(4000)}} }`;
    const tokened = await t.graphql(tokens, {}, admin);
    expectError(tokened, 'OPERATION_LIMIT_EXCEEDED', 400);
    expect(tokened.body.errors?.[0]?.message).toMatch(/more than 3000 tokens \(the token limit\)/);
  });
});

describe('subscriptions', () => {
  it('a conditional subscription root (@skip/@include, directly or in a fragment) is GRAPHQL_VALIDATION_FAILED, 400', async () => {
    const admin = keyOf('account admin');
    for (const query of [
      'subscription { meetingContentReady @skip(if: true) { title } }',
      'subscription { meetingContentReady @include(if: false) { title } }',
      'subscription { ...Root } fragment Root on Subscription { meetingContentReady @skip(if: false) { title } }',
      'subscription { ... @include(if: true) { meetingContentReady { title } } }',
    ]) {
      const res = await t.graphql(query, {}, admin);
      expectError(res, 'GRAPHQL_VALIDATION_FAILED', 400);
      expect(res.body.errors?.[0]?.message).toMatch(/root field may not be conditional/);
    }
    const withVariable = 'subscription S($on: Boolean!) { meetingContentReady @include(if: $on) { title } }';
    expectError(await t.graphql(withVariable, { on: false }, admin), 'GRAPHQL_VALIDATION_FAILED', 400);
  });
});
