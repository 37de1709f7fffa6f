/**
 * Who may send what where: Standard Webhooks signing (the known-answer vector of
 * docs/api/compatibility.md), the egress guard at registration and at every send, and the ingestion
 * service credential.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../src/delivery/egress.js';
import { sign, webhookHeaders } from '../../src/delivery/signing.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { viewerFor } from '../../src/domain/content-ready.js';
import { requestDelivery } from '../../src/domain/deliveries.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { emailOf, recordingJson, SERVICE_TOKEN, SERVICE_TOKEN_SHA256, silentLogger } from './support.js';

describe('signing', () => {
  it('gives the known-answer vector of docs/api/compatibility.md', () => {
    expect(
      sign(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is what standardwebhooks signs and verifies, with one secret or two (rotation)', () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const former = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const body = '{"recording_id":1,"title":"é ✓"}';
    const now = Math.floor(Date.now() / 1000);
    expect(sign(secret, 'msg_1', now, body)).toBe(
      new StandardWebhook(secret).sign('msg_1', new Date(now * 1000), body),
    );
    const both = webhookHeaders([secret, former], 'msg_1', now, body);
    expect(both['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new StandardWebhook(secret).verify(body, both)).toEqual(JSON.parse(body));
    expect(new StandardWebhook(former).verify(body, both)).toEqual(JSON.parse(body));
    const other = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    expect(() => new StandardWebhook(other).verify(body, both)).toThrow();
    expect(() => new StandardWebhook(secret).verify(`${body} `, both)).toThrow();
  });
});

describe('egress guard', () => {
  const guard = new EgressGuard();

  it('refuses every class of non-public address, and IPv6 forms of refused IPv4 ones', () => {
    const refused: Record<string, RegExp> = {
      '127.0.0.1': /loopback/,
      '127.255.0.9': /loopback/,
      '::1': /loopback/,
      '::ffff:127.0.0.1': /IPv6 form of 127\.0\.0\.1, a loopback/,
      '::ffff:7f00:1': /IPv6 form of 127\.0\.0\.1/,
      '::ffff:a9fe:a9fe': /IPv6 form of 169\.254\.169\.254, a cloud metadata/,
      '64:ff9b::a00:1': /IPv6 form of 10\.0\.0\.1, a private/,
      '2002:c0a8:0101::1': /IPv6 form of 192\.168\.1\.1, a private/,
      '10.0.0.1': /private/,
      '172.16.5.4': /private/,
      '192.168.0.10': /private/,
      '100.64.0.1': /CGNAT/,
      '100.100.100.200': /cloud metadata/,
      '169.254.169.254': /cloud metadata/,
      '169.254.10.1': /link-local/,
      '168.63.129.16': /cloud metadata/,
      'fd00:ec2::254': /cloud metadata/,
      'fc00::1': /unique local/,
      'fe80::1': /link-local/,
      'fe80::1%eth0': /link-local/,
      '0.0.0.0': /unspecified/,
      '::': /unspecified/,
      '224.0.0.1': /multicast/,
      'ff02::1': /multicast/,
      '255.255.255.255': /reserved/,
      '198.18.0.1': /benchmarking/,
      '192.0.2.1': /documentation/,
      '2001:db8::1': /documentation/,
    };
    for (const [address, why] of Object.entries(refused))
      expect(guard.refusal(address), address).toMatch(why);
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '100.128.0.1',
    ])
      expect(guard.refusal(address), address).toBeNull();
  });

  it('lets the allow-list through, including mapped forms of allowed addresses', () => {
    const allowing = new EgressGuard(['127.0.0.1/32', 'fd00::/8']);
    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(allowing.refusal('fd12::1')).toBeNull();
    expect(allowing.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(() => new EgressGuard(['not-a-cidr'])).toThrow();
  });

  it('resolves host names and refuses any that reach a refused address, or none', async () => {
    const resolving = new EgressGuard([], async (host) =>
      host === 'mixed.test'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.1.2.3', family: 4 },
          ]
        : [{ address: '93.184.216.34', family: 4 }],
    );
    await expect(resolving.checkUrl('https://mixed.test/hook')).rejects.toThrow(
      'mixed.test resolves to 10.1.2.3, which is a private address',
    );
    await expect(resolving.checkUrl('https://fine.test/hook')).resolves.toBeUndefined();
    await expect(guard.checkUrl('http://localhost:8080/x')).rejects.toThrow(
      /localhost resolves to .* loopback/,
    );
    await expect(guard.checkUrl('https://nowhere.invalid/x')).rejects.toThrow(
      'the host nowhere.invalid cannot be resolved',
    );
    await expect(guard.checkUrl('gopher://93.184.216.34/')).rejects.toThrow('only http and https');
  });
});

describe('through the API', () => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    [t, rx] = await Promise.all([
      startTestApp({ DELIVERY_WORKER: 'false', INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256 }),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  const blocked = [
    'http://localhost/hook',
    'http://127.0.0.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.200/hook',
    'http://[fd00:ec2::254]/hook',
    'http://2130706433/hook', // 127.0.0.1 as one number: URL parsing normalises it first
    'http://0x7f.1/hook',
  ];

  it('refuses every blocked address at registration: createWebhook, deliverTranscript, deliverSummary', async () => {
    const createWebhook = `mutation($url: String!) { createWebhook(input: {
      destinationUrl: $url, triggeredFor: [MY_RECORDINGS], includeSummary: true }) { webhook { id } } }`;
    const deliver = (field: string) =>
      `mutation($url: String!, $id: Int!) { ${field}(recordingId: $id, destinationUrl: $url) { destinationUrl } }`;
    const visible = await t.graphql(
      '{ meetings(first: 1) { edges { node { recordingId } } } }',
      {},
      keyOf('account admin'),
    );
    const id = visible.body.data.meetings.edges[0].node.recordingId;
    for (const url of blocked) {
      for (const [query, variables] of [
        [createWebhook, { url }],
        [deliver('deliverTranscript'), { url, id }],
        [deliver('deliverSummary'), { url, id }],
      ] as const) {
        const res = await t.graphql(query, variables, keyOf('account admin'));
        expect(res.body.errors?.[0]?.extensions?.code, `${url} ${query.slice(0, 40)}`).toBe('BAD_USER_INPUT');
        expect(res.body.errors?.[0]?.message, url).toMatch(/^destination_url is refused: /);
      }
    }
    const res = await t.graphql(createWebhook, { url: 'https://93.184.216.34/hook' }, keyOf('account admin'));
    expect(res.body.errors).toBeUndefined(); // a public address is fine (nothing is sent at registration)
    expect(await t.app.database.collections.outbox.countDocuments({ destinationUrl: { $in: blocked } })).toBe(
      0,
    );
  });

  it('refuses again at send time: a queued message to a loopback receiver is never sent without the allow-list', async () => {
    const { collections } = t.app.database;
    const user = (await collections.users.findOne({ email: emailOf('account admin') }))!;
    const org = (await collections.organisations.findOne({ _id: user.orgId }))!;
    const meeting = (await collections.meetings.findOne({ recorderId: user._id }))!;
    const allowAll = async () => {}; // as if registered under another configuration
    const port = new URL(rx.url).port;
    const queued = [];
    for (const url of [
      `${rx.url}/direct`,
      `http://localhost:${port}/named`,
      `http://[::ffff:127.0.0.1]:${port}/mapped`,
    ])
      queued.push(
        await requestDelivery(
          collections,
          viewerFor(user, org),
          meeting.recordingId,
          'summary',
          url,
          allowAll,
          t.app.services.outboxHint,
        ),
      );
    const worker = new DeliveryWorker({
      collections,
      media: t.app.database.media,
      logger: silentLogger,
      egress: new EgressGuard(),
      timeoutMs: 3_000,
    });
    await worker.runOnce();
    await worker.stop();
    expect(rx.received).toHaveLength(0);
    for (const { messageId } of queued) {
      const message = (await collections.outbox.findOne({ messageId }))!;
      expect(message).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: null });
      expect(message.lastError, message.destinationUrl).toMatch(/loopback/);
    }

    // The same messages go out once the worker's allow-list admits the receiver.
    await collections.outbox.updateMany(
      { messageId: { $in: queued.map((q) => q.messageId) } },
      { $set: { nextAttemptAt: new Date() } },
    );
    const allowed = new DeliveryWorker({
      collections,
      media: t.app.database.media,
      logger: silentLogger,
      egress: new EgressGuard(['127.0.0.1/32']),
    });
    await allowed.runOnce();
    await allowed.stop();
    expect(rx.received.map((r) => r.path).sort()).toEqual(['/direct', '/mapped', '/named']);
  });

  describe('ingestRecording', () => {
    const mutation = `mutation($r: String!) { ingestRecording(recording: $r) { recordingId becameReady eventsQueued } }`;
    const bearer = `Bearer ${SERVICE_TOKEN}`;

    it('only the service token may call it', async () => {
      const r = JSON.stringify(recordingJson(emailOf('account admin')));
      const anonymous = await t.graphql(mutation, { r });
      expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const apiKey = await t.graphql(mutation, { r }, keyOf('account admin'));
      expect(apiKey.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(apiKey.status).toBe(403);
      const wrong = await t.graphql(mutation, { r }, `Bearer ${SERVICE_TOKEN}x`);
      expect(wrong.status).toBe(401);
      const service = await t.graphql(mutation, { r }, bearer);
      expect(service.body.errors).toBeUndefined();
      expect(service.body.data.ingestRecording.becameReady).toBe(true);
      // The service token is no viewer: it reads nothing.
      const read = await t.graphql('{ viewer { email } }', {}, bearer);
      expect(read.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      // The scheme is case-insensitive and spaces around the token do not matter.
      const lenient = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `bearer  ${SERVICE_TOKEN} ` },
        body: JSON.stringify({ query: mutation, variables: { r } }),
      });
      expect(((await lenient.json()) as { errors?: unknown }).errors).toBeUndefined();
    });

    it('says what is wrong with a recording, with paths', async () => {
      const bad = await t.graphql(mutation, { r: '{"recording_id": ' }, bearer);
      expect(bad.body.errors?.[0]?.message).toMatch(/^recording is not JSON/);
      const invalid = recordingJson(emailOf('account admin'), { recording_id: -1, url: 'nope' });
      const res = await t.graphql(mutation, { r: JSON.stringify(invalid) }, bearer);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.message).toMatch(/recording\.recording_id: .*recording\.url: /);
      const unknown = recordingJson('nobody@acme.test');
      const refused = await t.graphql(mutation, { r: JSON.stringify(unknown) }, bearer);
      expect(refused.body.errors?.[0]?.message).toBe('Unknown recorder: nobody@acme.test');
      // An address past RFC 5321's 254 characters is bad input, not a key the database refuses (500).
      const long = `${'x'.repeat(3000)}@initech.test`;
      const tooLong = recordingJson(emailOf('account admin'), {
        calendar_invitees: [{ name: 'Long', email: long }],
        sharing: { users: [long], teams: [], all_teams: false },
      });
      const longRes = await t.graphql(mutation, { r: JSON.stringify(tooLong) }, bearer);
      expect(longRes.status).toBe(400);
      expect(longRes.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(longRes.body.errors?.[0]?.message).toMatch(
        /recording\.calendar_invitees\[0\]\.email: .*recording\.sharing\.users\[0\]: /,
      );
    });
  });
});
