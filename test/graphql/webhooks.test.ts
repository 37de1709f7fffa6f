/** createWebhook / webhooks / deleteWebhook and the delivery mutations through the real endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset, demoPersonas } from '../../seeds/index.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';

const admin = keyOf('account admin');
const other = keyOf('member: team view');
const create = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) {
  secret webhook { id url createdAt includeTranscript includeSummary includeCrmMatches includeActionItems triggeredFor } } }`;

// Destination URLs must resolve to allowed addresses (src/delivery/egress.ts): these tests use a
// loopback URL and allow-list it. Nothing listens there and no worker runs: they test the queue.
const hooks = 'http://127.0.0.1:9';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ EGRESS_ALLOW_CIDRS: '127.0.0.1/32', DELIVERY_WORKER: 'false' });
});
afterAll(() => t.close());

describe('webhooks', () => {
  it('createWebhook returns the secret once; webhooks lists the caller’s own without it', async () => {
    const res = await t.graphql(
      create,
      {
        input: {
          destinationUrl: `${hooks}/a`,
          triggeredFor: ['MY_RECORDINGS'],
          includeSummary: true,
        },
      },
      admin,
    );
    expect(res.body.errors).toBeUndefined();
    const { secret, webhook } = res.body.data.createWebhook;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(webhook).toMatchObject({
      url: `${hooks}/a`,
      includeSummary: true,
      includeTranscript: false,
      triggeredFor: ['MY_RECORDINGS'],
    });

    const mine = await t.graphql('{ webhooks { id url } }', {}, admin);
    expect(mine.body.data.webhooks.map((w: { id: string }) => w.id)).toContain(webhook.id);
    const theirs = await t.graphql('{ webhooks { id } }', {}, other);
    expect(theirs.body.data.webhooks.map((w: { id: string }) => w.id)).not.toContain(webhook.id);
    const secretField = await t.graphql('{ webhooks { secret } }', {}, admin);
    expect(secretField.status).toBe(400);
  });

  it('refuses no include flag, no trigger, and a non-http URL with BAD_USER_INPUT', async () => {
    for (const input of [
      { destinationUrl: `${hooks}/b`, triggeredFor: ['MY_RECORDINGS'] },
      { destinationUrl: `${hooks}/b`, triggeredFor: [], includeSummary: true },
      { destinationUrl: 'ftp://hooks.example/b', triggeredFor: ['MY_RECORDINGS'], includeSummary: true },
      { destinationUrl: 'not a url', triggeredFor: ['MY_RECORDINGS'], includeSummary: true },
      // A host name that does not resolve (no DNS here; .example never resolves) is refused too.
      { destinationUrl: 'https://hooks.example/b', triggeredFor: ['MY_RECORDINGS'], includeSummary: true },
    ]) {
      const res = await t.graphql(create, { input }, admin);
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(res.status).toBe(400);
    }
  });

  it('says why a destination is refused', async () => {
    const input = {
      destinationUrl: 'https://hooks.example/b',
      triggeredFor: ['MY_RECORDINGS'],
      includeSummary: true,
    };
    const res = await t.graphql(create, { input }, admin);
    expect(res.body.errors?.[0]?.message).toBe(
      'destination_url is refused: the host hooks.example cannot be resolved.',
    );
  });

  it('deleteWebhook deletes the caller’s own; someone else’s or an unknown id is NOT_FOUND', async () => {
    const made = await t.graphql(
      create,
      {
        input: {
          destinationUrl: `${hooks}/c`,
          triggeredFor: ['SHARED_TEAM_RECORDINGS'],
          includeTranscript: true,
        },
      },
      admin,
    );
    const id = made.body.data.createWebhook.webhook.id;
    const del = 'mutation($id: ID!) { deleteWebhook(id: $id) { deletedId } }';
    const foreign = await t.graphql(del, { id }, other);
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(foreign.status).toBe(404);
    expect((await t.graphql(del, { id }, admin)).body.data.deleteWebhook.deletedId).toBe(id);
    expect((await t.graphql(del, { id }, admin)).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await t.graphql(del, { id: 'nonsense' }, admin)).body.errors?.[0]?.extensions?.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('deliveries', () => {
  const dataset = demoDataset();
  const email = demoPersonas.find((p) => p.label === 'member: team view')!.email;
  const visible = visibleRecordings(dataset, email);
  const seen = dataset.meetings.find((m) => visible.has(m.recording_id))!.recording_id;
  const hidden = dataset.meetings.find((m) => !visible.has(m.recording_id))!.recording_id;
  const deliver =
    'mutation($id: Int!, $url: String!) { deliverTranscript(recordingId: $id, destinationUrl: $url) { destinationUrl } }';

  it('queues a delivery of a visible recording and answers at once', async () => {
    const res = await t.graphql(deliver, { id: seen, url: `${hooks}/t` }, other);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.deliverTranscript.destinationUrl).toBe(`${hooks}/t`);
    const queued = await t.app.database.collections.outbox.findOne({
      recordingId: seen,
      kind: 'transcript_delivery',
    });
    expect(queued).toMatchObject({ status: 'pending', destinationUrl: `${hooks}/t` });
    expect(queued!.messageId).toMatch(/^msg_/);
  });

  it('a recording the caller may not see is NOT_FOUND, exactly like one that does not exist', async () => {
    const hiddenRes = await t.graphql(deliver, { id: hidden, url: `${hooks}/t` }, other);
    const missing = await t.graphql(deliver, { id: 987654, url: `${hooks}/t` }, other);
    expect(hiddenRes.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(hiddenRes.body.errors?.[0]?.message).toBe(`No recording with id ${hidden}.`);
    expect(missing.body.errors?.[0]?.message).toBe('No recording with id 987654.');
    const bad = await t.graphql(
      'mutation($id: Int!) { deliverSummary(recordingId: $id, destinationUrl: "file:///etc/passwd") { destinationUrl } }',
      { id: seen },
      other,
    );
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
