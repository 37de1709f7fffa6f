/**
 * examples/webhook-receiver.ts run as docs/api/examples.md says (`node --import tsx`, WEBHOOK_SECRET and
 * PORT): the service's own worker delivers a real event to it, which it verifies and prints; a
 * forged or unsigned request is refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from '../delivery/support.js';
import type { TestApp } from '../support/app.js';
import { exitOf, freePort, outputOf, waitForOutput } from '../support/processes.js';

const alice = 'account admin';

let t: TestApp;
let receiver: ChildProcess;
let receiverUrl: string;
let secret: string;
let output: { stdout: string; stderr: string };

beforeAll(async () => {
  const [app, testReceiver] = await startDeliveryTest({ DELIVERY_WORKER: 'true' });
  t = app;
  await testReceiver.close(); // events go to the example receiver instead
  const port = await freePort();
  receiverUrl = `http://127.0.0.1:${port}/webhook`;
  ({ secret } = await createWebhook(t, alice, receiverUrl, { triggeredFor: ['MY_RECORDINGS'] }));
  receiver = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts'], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  output = outputOf(receiver);
  await waitForOutput(receiver, /listening on/);
}, 60_000);

afterAll(async () => {
  if (receiver) {
    receiver.kill('SIGTERM');
    await exitOf(receiver);
  }
  await t?.close();
});

describe('examples/webhook-receiver.ts', () => {
  it("verifies the service's signed event and prints the meeting", async () => {
    const recording = recordingJson(emailOf(alice));
    expect((await ingest(t, recording)).eventsQueued).toBe(1);
    const id = recording.recording_id;
    await vi.waitFor(() => expect(output.stdout).toContain('"markdown_formatted"'), { timeout: 20_000 });
    expect(output.stdout).toMatch(new RegExp(`verified msg_\\S+: recording ${id} "Delivery test ${id}"`));
    expect(output.stdout).toContain(`"markdown_formatted": "## Summary of ${id}"`);
  }, 30_000);

  it('prints the event of examples/recording.json stored with `npm run ingest`, as docs/api/examples.md walks through', async () => {
    // Another process stores it in the service's database; the service's worker finds the event by polling.
    const ingestion = spawn('npm', ['run', '--silent', 'ingest', '--', '--file', 'examples/recording.json'], {
      env: { ...process.env, MONGODB_URI: t.app.mongoUri },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ingested = outputOf(ingestion);
    expect(await exitOf(ingestion)).toEqual({ code: 0, signal: null });
    expect(ingested.stdout).toContain('Stored recording 100900: content ready, 1 webhook event(s) queued');
    await vi.waitFor(() => expect(output.stdout).toContain('recording 100900'), { timeout: 20_000 });
    expect(output.stdout).toMatch(/verified msg_\S+: recording 100900 "Onboarding call with Hooli"/);
  }, 60_000);

  it('answers 401 to a request signed with another secret, and to a tampered body', async () => {
    const forger = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const body = JSON.stringify({ recording_id: 1, title: 'forged' });
    const now = new Date();
    const forged = await post(body, {
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': forger.sign('msg_forged', now, body),
    });
    expect(forged.status).toBe(401);

    const genuine = new Webhook(secret);
    const tampered = await post(body.replace('forged', 'tampered'), {
      'webhook-id': 'msg_genuine',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': genuine.sign('msg_genuine', now, body),
    });
    expect(tampered.status).toBe(401);
    expect(output.stdout).not.toContain('forged');
    expect(output.stdout).not.toContain('tampered');
  });

  it('answers 400 to a request without the signature headers', async () => {
    const res = await post('{}', {});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'missing webhook-id header' });
  });
});

function post(body: string, headers: Record<string, string>) {
  return fetch(receiverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}
