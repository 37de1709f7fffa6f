/**
 * Several processes on one database: a worker killed with SIGKILL mid-batch loses nothing (another
 * worker delivers every event, each webhook-id at least once), and a live subscriber over SSE hears
 * of a meeting ingested by another process (`npm run ingest`) only when it may see it;
 * `npm run ingest --media` streams a recording's file into the database. The worker and ingest
 * commands run built, as production runs them (test/support/build.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, type TestApp } from '../support/app.js';
import { builtEntry, ensureBuild } from '../support/build.js';
import type { Receiver } from '../support/receiver.js';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from './support.js';

const tom = 'team admin (Sales)';
const tina = 'member: team view';

let t: TestApp;
let rx: Receiver;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [[t, rx]] = await Promise.all([startDeliveryTest({ SUBSCRIPTION_POLL_MS: '100' }), ensureBuild()]);
  dir = mkdtempSync(join(tmpdir(), 'ingest-'));
}, 180_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await rx.close();
  await t.close();
});

function run(command: 'worker' | 'ingest', args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [builtEntry(command), ...args], {
    env: { ...process.env, MONGODB_URI: t.app.mongoUri, LOG_LEVEL: 'silent', WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function exited(
  child: ChildProcess,
): Promise<{ code: number | null; signal: string | null; output: string }> {
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output })));
}

const workerEnv = {
  EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
  DELIVERY_CONCURRENCY: '4',
  DELIVERY_POLL_MS: '100',
  DELIVERY_TIMEOUT_MS: '1500',
  DELIVERY_LEASE_MS: '2500',
};

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('workers', () => {
  it('a worker killed with SIGKILL mid-batch loses nothing: another delivers every event', async () => {
    const { collections } = t.app.database;
    for (let i = 0; i < 6; i++)
      await createWebhook(t, tom, `${rx.url}/batch/${i}`, { triggeredFor: ['MY_RECORDINGS'] });
    for (let i = 0; i < 4; i++) await ingest(t, recordingJson(emailOf(tom)));
    const events = await collections.outbox.find({ kind: 'webhook_event' }).toArray();
    expect(events).toHaveLength(24);
    rx.respond('/batch/0', { status: 200, delayMs: 200 });
    for (let i = 1; i < 6; i++) rx.respond(`/batch/${i}`, { status: 200, delayMs: 200 });

    const first = run('worker', [], workerEnv);
    const firstExit = exited(first);
    await rx.waitFor(6, undefined, 30_000);
    const inFlight = await collections.outbox.countDocuments({ leaseToken: { $ne: null } });
    first.kill('SIGKILL');
    expect((await firstExit).signal).toBe('SIGKILL');
    expect(inFlight).toBeGreaterThan(0); // it died holding leases, mid-delivery
    const deliveredBefore = await collections.outbox.countDocuments({ status: 'delivered' });
    expect(deliveredBefore).toBeLessThan(24);

    const second = run('worker', [], workerEnv);
    const secondExit = exited(second);
    await until(
      async () => (await collections.outbox.countDocuments({ status: 'delivered' })) === 24,
      30_000,
      'every event delivered',
    );
    second.kill('SIGTERM');
    expect((await secondExit).code).toBe(0);

    const receivedIds = new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
    for (const e of events) expect(receivedIds.has(e.messageId), e.messageId).toBe(true);
    expect(receivedIds.size).toBe(24);
  }, 60_000);
});

interface SseStream {
  events: { event: string; data: any }[];
  status: number;
  close(): Promise<void>;
}

/** Subscribes over server-sent events (POST with Accept: text/event-stream) and collects events. */
async function subscribe(key: string, query: string): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  const events: SseStream['events'] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: data ? JSON.parse(data) : null });
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    status: res.status,
    async close() {
      controller.abort();
      await reading;
    },
  };
}

describe('live updates', () => {
  const query = 'subscription { meetingContentReady { recordingId title recordedBy { email } } }';

  it('a subscriber hears of a meeting ingested by another process; one who may not see it hears nothing', async () => {
    const recorder = await subscribe(keyOf(tom), query);
    const outsider = await subscribe(keyOf(tina), query);
    expect(recorder.status).toBe(200);
    try {
      // Private to Tom: Tina may not see it.
      const hidden = recordingJson(emailOf(tom));
      writeFileSync(join(dir, 'hidden.json'), JSON.stringify(hidden));
      const ingestion = await exited(run('ingest', ['--file', join(dir, 'hidden.json')], {}));
      expect(ingestion.code, ingestion.output).toBe(0);
      expect(ingestion.output).toContain(`Stored recording ${hidden.recording_id}: content ready`);
      await until(async () => recorder.events.length > 0, 10_000, 'the recorder’s event');
      expect(recorder.events[0]).toEqual({
        event: 'next',
        data: {
          data: {
            meetingContentReady: {
              recordingId: hidden.recording_id,
              title: hidden.title,
              recordedBy: { email: emailOf(tom) },
            },
          },
        },
      });

      // Shared with Tina: now she hears of it (and never heard of the first one).
      const shared = recordingJson(emailOf(tom), {
        sharing: { users: [emailOf(tina)], teams: [], all_teams: false },
      });
      writeFileSync(join(dir, 'shared.json'), JSON.stringify(shared));
      expect((await exited(run('ingest', ['--file', join(dir, 'shared.json')], {}))).code).toBe(0);
      await until(
        async () => outsider.events.length > 0 && recorder.events.length > 1,
        10_000,
        'both events',
      );
      expect(outsider.events.map((e) => e.data.data.meetingContentReady.recordingId)).toEqual([
        shared.recording_id,
      ]);
      expect(recorder.events.map((e) => e.data.data.meetingContentReady.recordingId)).toEqual([
        hidden.recording_id,
        shared.recording_id,
      ]);

      // Ingesting it again fires nothing.
      expect((await exited(run('ingest', ['--file', join(dir, 'shared.json')], {}))).output).toContain(
        'nothing fires',
      );
      await new Promise((r) => setTimeout(r, 400));
      expect(recorder.events).toHaveLength(2);
    } finally {
      await recorder.close();
      await outsider.close();
    }
  }, 60_000);

  it('meetingChanged: a subscriber hears of the changes another process makes; npm run ingest --delete deletes, twice without error', async () => {
    const changes = await subscribe(
      keyOf(tom),
      'subscription { meetingChanged { recordingId kinds removed } }',
    );
    const others = await subscribe(
      keyOf(tina),
      'subscription { meetingChanged { recordingId kinds removed } }',
    );
    try {
      const recording = recordingJson(emailOf(tom));
      const file = join(dir, 'changing.json');
      const ingestion = async (args: string[]) => {
        const done = await exited(run('ingest', args, {}));
        expect(done.code, done.output).toBe(0);
        return done.output;
      };
      writeFileSync(file, JSON.stringify(recording));
      expect(await ingestion(['--file', file])).toContain('changed: created');
      writeFileSync(file, JSON.stringify({ ...recording, title: 'Renamed by the pipeline' }));
      expect(await ingestion(['--file', file])).toContain('changed: content');
      expect(await ingestion(['--file', file])).toContain('unchanged');
      expect(await ingestion(['--delete', String(recording.recording_id)])).toContain(
        `Deleted recording ${recording.recording_id}`,
      );
      expect(await ingestion(['--delete', String(recording.recording_id)])).toContain('nothing to delete');
      await until(async () => changes.events.length >= 3, 10_000, 'three changes');
      expect(changes.events.map((e) => e.data.data.meetingChanged)).toEqual([
        { recordingId: recording.recording_id, kinds: ['CREATED'], removed: expect.any(Boolean) },
        { recordingId: recording.recording_id, kinds: ['CONTENT'], removed: expect.any(Boolean) },
        { recordingId: recording.recording_id, kinds: ['DELETED'], removed: true },
      ]);
      // Private to Tom: Tina heard of none of it.
      expect(others.events).toEqual([]);
      const bad = await exited(run('ingest', ['--delete', 'twelve'], {}));
      expect([bad.code, bad.output]).toEqual([2, expect.stringContaining('positive integer')]);
    } finally {
      await changes.close();
      await others.close();
    }
  }, 60_000);

  it('refuses anonymous subscribers; the ingest CLI refuses a bad file before connecting', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
    });
    const text = await res.text();
    expect(text).toContain('UNAUTHENTICATED');

    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ recording_id: 'x' }));
    const bad = await exited(run('ingest', ['--file', join(dir, 'bad.json')], { MONGODB_URI: '' }));
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/recording\.recording_id: /);
  });
});

describe('npm run ingest --file', () => {
  it('refuses a recording too large to store, saying how large and the limit; nothing of it is stored', async () => {
    // Sixty thousand lines, about 10 MB of JSON: as stored (its lines and its JSON), over MongoDB's 16 MB.
    const transcript = Array.from({ length: 60_000 }, (_, i) => ({
      speaker: { display_name: 'Ana', matched_calendar_invitee_email: null },
      text: `A sentence long enough to weigh on a transcript of sixty thousand lines (${i}).`,
      timestamp: new Date(i * 1000).toISOString().slice(11, 19),
    }));
    const huge = recordingJson(emailOf(tom), { transcript });
    writeFileSync(join(dir, 'huge.json'), JSON.stringify(huge));
    const ingestion = await exited(run('ingest', ['--file', join(dir, 'huge.json')], {}));
    expect(ingestion.code).not.toBe(0);
    expect(ingestion.output).toMatch(
      new RegExp(
        `The transcript of recording ${huge.recording_id} is too large to store: \\d+\\.\\d MB as stored, at most 15 MB`,
      ),
    );
    expect(ingestion.output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    const { collections } = t.app.database;
    expect(await collections.meetings.findOne({ recordingId: huge.recording_id })).toBeNull();
    expect(await collections.transcripts.findOne({ recordingId: huge.recording_id })).toBeNull();
  }, 60_000);
});

describe('npm run ingest --media', () => {
  it('streams the file into GridFS, and the same file again changes nothing; a download link gives it back', async () => {
    const recording = recordingJson(emailOf(tom));
    const bytes = randomBytes(1_200_000);
    writeFileSync(join(dir, 'media.json'), JSON.stringify(recording));
    writeFileSync(join(dir, 'media.mp4'), bytes);
    const args = ['--file', join(dir, 'media.json'), '--media', join(dir, 'media.mp4')];
    const first = await exited(run('ingest', args, {}));
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`Stored its video (video/mp4, ${bytes.length} bytes)`);
    const again = await exited(run('ingest', args, {}));
    expect(again.output).toContain('Its video was stored already: unchanged');

    const made = await t.graphql(
      `mutation { requestDownload(recordingId: ${recording.recording_id}) { video { url } } }`,
      {},
      keyOf(tom),
    );
    const file = await fetch(made.body.data.requestDownload.video.url);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses, before connecting, a file of no known type, a type that is not media, or a missing file', async () => {
    writeFileSync(join(dir, 'refused.json'), JSON.stringify(recordingJson(emailOf(tom))));
    writeFileSync(join(dir, 'media.bin'), 'x');
    const cases: [string[], RegExp][] = [
      [['--media', join(dir, 'media.bin')], /--media-type/],
      [['--media', join(dir, 'media.bin'), '--media-type', 'text/plain'], /video or audio/],
      [['--media', join(dir, 'nothing.mp4')], /Cannot read/],
      [['--media-type', 'video/mp4'], /goes with --media/],
    ];
    for (const [extra, message] of cases) {
      const res = await exited(
        run('ingest', ['--file', join(dir, 'refused.json'), ...extra], {
          MONGODB_URI: '',
        }),
      );
      expect(res.code, res.output).toBe(2);
      expect(res.output).toMatch(message);
    }
  });
});
