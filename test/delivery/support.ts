/**
 * Delivery test support: a fake clock, the ingestion service token, recordings in the seed meeting
 * format, and webhooks made through GraphQL. Receivers are in ../support/receiver.ts.
 */
import { demoPersonas } from '../../seeds/index.js';
import type { Database } from '../../src/db/connection.js';
import { EgressGuard } from '../../src/delivery/egress.js';
import { DeliveryWorker, type WorkerOptions } from '../../src/delivery/worker.js';
import { hashSecret } from '../../src/domain/viewer.js';
import { createLogger } from '../../src/logger.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { testRecording } from '../support/recording.js';

export const silentLogger = createLogger('silent');

export const SERVICE_TOKEN = 'svc_ingest_test_token_0123456789';
export const SERVICE_TOKEN_SHA256 = hashSecret(SERVICE_TOKEN);

/**
 * The app as delivery tests need it (loopback receivers allowed, the service token accepted, no
 * worker of its own unless `env` asks), and a receiver on loopback.
 */
export async function startDeliveryTest(env: Record<string, string> = {}): Promise<[TestApp, Receiver]> {
  return Promise.all([
    startTestApp({
      EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
      DELIVERY_WORKER: 'false',
      INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256,
      ...env,
    }),
    startReceiver(),
  ]);
}

export const emailOf = (label: string) => demoPersonas.find((p) => p.label === label)!.email;

export interface FakeClock {
  now(): Date;
  advance(ms: number): void;
  set(date: Date): void;
}

export function fakeClock(start = Date.now()): FakeClock {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (date) => {
      t = date.getTime();
    },
  };
}

/**
 * A worker on loopback receivers with a fake clock (its own, starting at the real time, unless
 * `options.clock`), added to `workers` for the test to stop.
 */
export function testWorker(
  { collections, media }: Pick<Database, 'collections' | 'media'>,
  workers: DeliveryWorker[],
  options: Partial<WorkerOptions> = {},
): { worker: DeliveryWorker; clock: FakeClock } {
  const clock = (options.clock as FakeClock | undefined) ?? fakeClock();
  const worker = new DeliveryWorker({
    collections,
    media,
    logger: silentLogger,
    egress: new EgressGuard(['127.0.0.1/32']),
    clock,
    timeoutMs: 3_000,
    leaseMs: 10_000,
    sweepGraceMs: 0,
    ...options,
  });
  workers.push(worker);
  return { worker, clock };
}

let nextRecordingId = 910_000 + (process.pid % 1000) * 100;

/** A recording in the seed meeting format, with every kind of content; `overrides` win. */
export function recordingJson(
  recordedBy: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> & { recording_id: number } {
  const id = nextRecordingId++;
  const start = Date.parse('2026-10-02T10:00:00Z') + (id % 1000) * 3600_000;
  return {
    ...testRecording(id, recordedBy, start, {
      title: `Delivery test ${id}`,
      meeting_title: `Delivery test ${id}`,
      meeting_url: 'https://meet.example/abc-defg-hij',
      calendar_invitees: [
        { name: 'Recorder', email: recordedBy },
        { name: 'Ravi Shah', email: 'ravi.shah@hooli.test' },
        { name: 'Priya Raman', email: 'priya.raman@initech.test' },
      ],
    }),
    transcript: [
      {
        speaker: { display_name: 'Ravi', matched_calendar_invitee_email: 'ravi.shah@hooli.test' },
        text: 'Shall we start?',
        timestamp: '00:00:05',
      },
    ],
    default_summary: { template_name: 'General', markdown_formatted: `## Summary of ${id}` },
    action_items: [
      {
        description: 'Send the proposal',
        user_generated: false,
        completed: false,
        recording_timestamp: '00:10:00',
        assignee: { name: 'Recorder', email: recordedBy, team: null },
      },
    ],
    highlights: [
      { type: 'Objection', summary: 'Price', start_time: 60, end_time: 90, text: 'Too expensive' },
    ],
    ...overrides,
  } as Record<string, unknown> & { recording_id: number };
}

const ingestMutation = `mutation($r: String!) { ingestRecording(recording: $r) {
  recordingId contentReady becameReady eventsQueued } }`;

/** Ingests through the GraphQL mutation with the service token. */
export async function ingest(t: TestApp, recording: object) {
  const res = await t.graphql(ingestMutation, { r: JSON.stringify(recording) }, `Bearer ${SERVICE_TOKEN}`);
  if (res.body.errors) throw new Error(`ingestRecording failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data.ingestRecording as {
    recordingId: number;
    contentReady: boolean;
    becameReady: boolean;
    eventsQueued: number;
  };
}

export interface WebhookOptions {
  triggeredFor: string[];
  includeTranscript?: boolean;
  includeSummary?: boolean;
  includeActionItems?: boolean;
  includeCrmMatches?: boolean;
}

/** Creates a webhook as the persona; returns its id and secret. */
export async function createWebhook(t: TestApp, persona: string, url: string, options: WebhookOptions) {
  const res = await t.graphql(
    `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { id } } }`,
    {
      input: {
        destinationUrl: url,
        includeSummary: !(
          options.includeTranscript ||
          options.includeActionItems ||
          options.includeCrmMatches
        ),
        ...options,
      },
    },
    keyOf(persona),
  );
  if (res.body.errors) throw new Error(`createWebhook failed: ${JSON.stringify(res.body.errors)}`);
  const { secret, webhook } = res.body.data.createWebhook;
  return { id: webhook.id as string, secret: secret as string };
}
