/**
 * Webhook fan-out: receivers on loopback, webhooks registered through the API, recordings
 * ingested through the `ingestRecording` mutation (the service token), deliveries made by the
 * service's own delivery worker. Measures deliveries per second and the latency from the start of
 * a recording's ingestion to the arrival of each of its events, and checks that every event
 * arrives exactly once (by `webhook-id`) with a valid Standard Webhooks signature.
 *
 * The machinery is looked for at run time (the mutations in the schema, the configuration
 * variables); without it the scenario reports itself skipped rather than measuring anything.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { variables } from '../src/config.js';
import { hashSecret } from '../src/domain/viewer.js';
import { type BenchUser, benchUsers, generateMeeting } from './dataset.js';
import { percentile } from './load.js';

export interface FanoutOptions {
  recordings: number;
  webhooks: number;
  /** Ingestion calls in flight at once. */
  concurrency: number;
  /** Recordings per second to ingest at most (0: as fast as `concurrency` allows). */
  rate: number;
  /** Transcript lines of each ingested recording. */
  entries: number;
  /** The whole scenario (ingestion and deliveries) stops after this; what is not done by then is reported as such. */
  timeoutSeconds: number;
  seed: number;
  /** Index of the first generated recording (after the dataset's). */
  firstIndex: number;
}

/**
 * The warm-up (unpaced, no target: the JIT's first work on the ingestion and delivery paths), the
 * steady phase (paced: latency) or the burst (unpaced: throughput).
 */
export type FanoutPhaseName = 'warm-up' | 'steady' | 'burst';
export type FanoutPhase = FanoutOptions & { phase: FanoutPhaseName };

export interface FanoutResult {
  status: 'measured' | 'skipped';
  reason?: string;
  recordings: number;
  webhooks: number;
  /** Recordings actually ingested before the deadline. */
  ingested: number;
  expected: number;
  delivered: number;
  /** Events still pending in the outbox at the deadline (late, not lost). */
  late: number;
  /** Events neither delivered nor pending: failed, cancelled, or marked delivered but never received. */
  lost: number;
  outbox: Record<string, number>;
  duplicates: number;
  badSignatures: number;
  ingestSeconds: number;
  ingestPerSecond: number;
  deliveriesPerSecond: number;
  /** Ingest start to arrival, ms; an event not delivered by the deadline counts as (at least) the deadline. */
  p50: number;
  p99: number;
  max: number;
  /** How many latencies are lower bounds (events not delivered by the deadline). */
  censored: number;
  ingestErrors: number;
  seconds: number;
}

/** The service token the orchestrator gives the service (its SHA-256 goes into INGEST_TOKEN_SHA256). */
export function serviceToken(): { token: string; sha256: string } {
  const token = `bench_${randomBytes(24).toString('hex')}`;
  return { token, sha256: hashSecret(token) };
}

/** Environment the service needs for the scenario (ignored by a service that does not know it). */
export function fanoutEnv(tokenSha256: string): Record<string, string> {
  return { INGEST_TOKEN_SHA256: tokenSha256, EGRESS_ALLOW_CIDRS: '127.0.0.1/32', DELIVERY_WORKER: 'true' };
}

export async function graphql(
  url: string,
  headers: Record<string, string>,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ data?: any; errors?: { message: string }[] }> {
  // undici's request rather than fetch: this process shares the machine with the servers measured,
  // and fetch's web streams cost it about 0.7 ms of CPU per ingestion in a profile of a burst.
  const res = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.body.json()) as { data?: any; errors?: { message: string }[] };
}

/** Null when the machinery is there; otherwise why the scenario cannot run. */
export async function missingMachinery(url: string, apiKey: string): Promise<string | null> {
  const needed = ['INGEST_TOKEN_SHA256', 'EGRESS_ALLOW_CIDRS', 'DELIVERY_WORKER'];
  const missingVariables = needed.filter((v) => !(v in variables));
  if (missingVariables.length > 0) return `configuration lacks ${missingVariables.join(', ')}`;
  const answer = await graphql(
    url,
    { 'x-api-key': apiKey },
    '{ __type(name: "Mutation") { fields { name } } }',
  );
  const fields = new Set<string>(
    (answer.data?.__type?.fields ?? []).map((f: { name: string }) => f.name as string),
  );
  const missing = ['ingestRecording', 'createWebhook'].filter((f) => !fields.has(f));
  return missing.length > 0 ? `the schema has no ${missing.join(' / ')} mutation` : null;
}

type SignatureCheck = (id: string, timestamp: string, body: Buffer, header: string) => boolean;

/**
 * The Standard Webhooks check, with node:crypto: HMAC-SHA256 of `id.timestamp.body` under the
 * secret (base64 after `whsec_`), one of the header's `v1,` signatures, the timestamp within 5
 * minutes. The test suite's receivers use the `standardwebhooks` package, which hashes in
 * JavaScript: at a thousand deliveries a second that cost a tenth of a core, taken from the
 * servers measured on this shared machine.
 */
function signatureCheck(secret: string): SignatureCheck {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return (id, timestamp, body, header) => {
    const seconds = Number(timestamp);
    if (!Number.isInteger(seconds) || Math.abs(Date.now() / 1000 - seconds) > 300) return false;
    const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
    return header.split(' ').includes(`v1,${mac}`);
  };
}

interface Arrival {
  webhook: number;
  messageId: string;
  recordingId: number;
  at: number;
}

export class Receivers {
  readonly arrivals: Arrival[] = [];
  readonly seen = new Set<string>();
  duplicates = 0;
  badSignatures = 0;
  private readonly servers: Server[] = [];
  readonly urls: string[] = [];
  private readonly verifiers: (SignatureCheck | null)[] = [];
  private onArrival: () => void = () => {};

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.verifiers.push(null);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const at = performance.now();
          const raw = Buffer.concat(chunks);
          const messageId = String(req.headers['webhook-id'] ?? '');
          const signed = this.verifiers[i]?.(
            messageId,
            String(req.headers['webhook-timestamp'] ?? ''),
            raw,
            String(req.headers['webhook-signature'] ?? ''),
          );
          if (signed === false) this.badSignatures++;
          const body = raw.toString('utf8');
          if (this.seen.has(messageId)) this.duplicates++;
          else {
            this.seen.add(messageId);
            let recordingId = -1;
            try {
              recordingId = (JSON.parse(body) as { recording_id: number }).recording_id;
            } catch {
              this.badSignatures++;
            }
            this.arrivals.push({ webhook: i, messageId, recordingId, at });
          }
          res.writeHead(204).end();
          this.onArrival();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      this.urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${i}`);
    }
  }

  verifyWith(index: number, secret: string): void {
    this.verifiers[index] = signatureCheck(secret);
  }

  /** Resolves when `count` distinct events arrived, or after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const check = () => {
        if (this.arrivals.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      };
      this.onArrival = check;
      check();
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise((resolve) => {
            s.closeAllConnections();
            s.close(resolve);
          }),
      ),
    );
  }
}

export const createWebhookMutation = /* GraphQL */ `
  mutation BenchCreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) { secret webhook { id } }
  }
`;

const deleteWebhookMutation = /* GraphQL */ `
  mutation BenchDeleteWebhook($id: ID!) {
    deleteWebhook(id: $id) { deletedId }
  }
`;

export const ingestMutation = /* GraphQL */ `
  mutation BenchIngest($recording: String!) {
    ingestRecording(recording: $recording) { recordingId becameReady eventsQueued }
  }
`;

/**
 * Registers `webhooks` webhooks (the recorder's own and teammates'), all matching recordings the
 * recorder shares with every team, then ingests `recordings` of them and waits for the events.
 * `url` serves /graphql to API keys; `appUrl` is the app's own door, which knows the service token.
 */
export async function runFanout(
  url: string,
  appUrl: string,
  token: string,
  options: FanoutOptions,
  log: (line: string) => void,
  /** Webhook events in the outbox by status, for the given recordings. */
  outboxOf: (recordingIds: number[]) => Promise<Record<string, number>>,
): Promise<FanoutResult> {
  const recorder = benchUsers[1]!;
  const owners: BenchUser[] = benchUsers.slice(1, 1 + options.webhooks);
  if (owners.length < options.webhooks) throw new Error(`at most ${benchUsers.length - 1} webhooks`);
  const receivers = new Receivers();
  await receivers.start(options.webhooks);
  const registered: { owner: BenchUser; id: string }[] = [];
  try {
    for (const [i, owner] of owners.entries()) {
      const answer = await graphql(url, { 'x-api-key': owner.apiKey }, createWebhookMutation, {
        input: {
          destinationUrl: receivers.urls[i],
          triggeredFor: [owner === recorder ? 'MY_SHARED_WITH_TEAM_RECORDINGS' : 'SHARED_TEAM_RECORDINGS'],
          includeSummary: true,
          includeActionItems: i % 3 === 0,
          includeCrmMatches: i % 4 === 1,
          includeTranscript: i % 5 === 2,
        },
      });
      const secret = answer.data?.createWebhook?.secret as string | undefined;
      if (!secret) throw new Error(`createWebhook failed: ${JSON.stringify(answer.errors ?? answer)}`);
      receivers.verifyWith(i, secret);
      registered.push({ owner, id: answer.data.createWebhook.webhook.id as string });
    }

    const recordings = Array.from({ length: options.recordings }, (_, k) => {
      const recording = generateMeeting(options.seed, options.firstIndex + k, options.firstIndex, {
        minEntries: options.entries,
        maxEntries: options.entries,
        recorder,
        sharing: { users: [], teams: [], all_teams: true },
        startMs: Date.parse('2026-10-02T00:00:00Z') + k * 60_000,
      });
      return { id: recording.recording_id, json: JSON.stringify(recording) };
    });
    const startedAt = new Map<number, number>();
    let expected = 0;
    let ingestErrors = 0;
    let next = 0;
    const t0 = performance.now();
    const deadline = t0 + options.timeoutSeconds * 1000;
    const lane = async () => {
      for (let k = next++; k < recordings.length && performance.now() < deadline; k = next++) {
        if (options.rate > 0) {
          const due = t0 + (k * 1000) / options.rate;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        const { id, json } = recordings[k]!;
        startedAt.set(id, performance.now());
        const answer = await graphql(appUrl, { authorization: `Bearer ${token}` }, ingestMutation, {
          recording: json,
        });
        const queued = answer.data?.ingestRecording?.eventsQueued;
        if (typeof queued === 'number') expected += queued;
        else {
          ingestErrors++;
          if (ingestErrors <= 3)
            log(`    ingest failed: ${JSON.stringify(answer.errors ?? answer).slice(0, 300)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, lane));
    const ingested = startedAt.size;
    const ingestSeconds = (performance.now() - t0) / 1000;
    log(
      `    ingested ${ingested}/${recordings.length} recordings in ${ingestSeconds.toFixed(1)} s; ${expected} events queued; waiting for deliveries`,
    );
    await receivers.waitFor(expected, Math.max(0, deadline - performance.now()));
    const end = performance.now();
    const seconds = (end - t0) / 1000;
    let outbox = await outboxOf([...startedAt.keys()]);
    // Every event arrived: the worker may not have recorded the last outcomes yet.
    for (let i = 0; i < 20 && receivers.arrivals.length >= expected && (outbox.pending ?? 0) > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      outbox = await outboxOf([...startedAt.keys()]);
    }
    const delivered = receivers.arrivals.length;
    const late = outbox.pending ?? 0;

    // Every expected event has a latency: measured when it arrived, at least `end - start` when not.
    const latencies = receivers.arrivals
      .map((a) => a.at - (startedAt.get(a.recordingId) ?? Number.NaN))
      .filter((ms) => Number.isFinite(ms));
    const arrivedPerRecording = new Map<number, number>();
    for (const a of receivers.arrivals)
      arrivedPerRecording.set(a.recordingId, (arrivedPerRecording.get(a.recordingId) ?? 0) + 1);
    let censored = 0;
    for (const [recordingId, start] of startedAt) {
      const missing = Math.max(0, options.webhooks - (arrivedPerRecording.get(recordingId) ?? 0));
      for (let i = 0; i < missing; i++) latencies.push(end - start);
      censored += missing;
    }
    latencies.sort((a, b) => a - b);
    const lastArrival = Math.max(...receivers.arrivals.map((a) => a.at), t0);
    return {
      status: 'measured',
      recordings: recordings.length,
      ingested,
      webhooks: options.webhooks,
      expected,
      delivered,
      late,
      lost: Math.max(0, expected - delivered - late),
      outbox,
      duplicates: receivers.duplicates,
      badSignatures: receivers.badSignatures,
      ingestSeconds,
      ingestPerSecond: ingested / ingestSeconds,
      deliveriesPerSecond: delivered / ((lastArrival - t0) / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
      censored,
      ingestErrors,
      seconds,
    };
  } finally {
    // The next phase registers its own webhooks: these must not match its recordings too.
    for (const { owner, id } of registered)
      await graphql(url, { 'x-api-key': owner.apiKey }, deleteWebhookMutation, { id });
    await receivers.close();
  }
}

export function skippedFanout(reason: string, options: FanoutOptions): FanoutResult {
  return {
    status: 'skipped',
    reason,
    recordings: options.recordings,
    ingested: 0,
    webhooks: options.webhooks,
    expected: 0,
    delivered: 0,
    late: 0,
    lost: 0,
    outbox: {},
    duplicates: 0,
    badSignatures: 0,
    ingestSeconds: 0,
    ingestPerSecond: 0,
    deliveriesPerSecond: 0,
    p50: Number.NaN,
    p99: Number.NaN,
    max: Number.NaN,
    censored: 0,
    ingestErrors: 0,
    seconds: 0,
  };
}
