/**
 * Ingests generated recordings through the `ingestRecording` mutation (the service token), paced at
 * `--ingest-rate` a second, until stopped. Each is recorded by user 1 and shared with every team, so
 * it matches every webhook the soak registers (webhooks.ts): the deliveries the soak then checks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { benchUsers, generateMeeting } from '../../bench/dataset.js';
import { ingestMutation } from '../../bench/fanout.js';
import type { SoakOptions } from './options.js';
import { gqlBody } from './request-mix.js';
import type { Tally } from './tally.js';

export class Ingester {
  /** Recording id -> ingestion start (performance.now()) and events queued, for those that succeeded. */
  readonly ingested = new Map<number, { at: number; queued: number }>();
  readonly failures: string[] = [];
  attempted = 0;
  private stopped = false;
  private lanes: Promise<void>[] = [];

  constructor(
    private readonly appUrl: string,
    private readonly token: string,
    private readonly opts: SoakOptions,
    private readonly tally: Tally,
  ) {}

  start(): void {
    if (this.opts.ingestRate <= 0) return;
    const t0 = performance.now();
    let next = 0;
    const first = this.opts.dataset.meetings;
    const lane = async () => {
      while (!this.stopped) {
        const k = next++;
        const wait = t0 + (k * 1000) / this.opts.ingestRate - performance.now();
        if (wait > 0) await sleep(wait);
        if (this.stopped) return;
        const recording = generateMeeting(this.opts.dataset.seed + 1, first + k, first, {
          minEntries: this.opts.ingestEntries,
          maxEntries: this.opts.ingestEntries,
          recorder: benchUsers[1]!,
          sharing: { users: [], teams: [], all_teams: true },
          startMs: Date.parse('2026-10-02T00:00:00Z') + k * 60_000,
        });
        await this.ingest(recording.recording_id, JSON.stringify(recording));
      }
    };
    // Two lanes, so one slow call does not hold the pace back.
    this.lanes = [lane(), lane()];
  }

  private async ingest(recordingId: number, recording: string): Promise<void> {
    this.attempted++;
    const at = performance.now();
    try {
      const res = await fetch(`${this.appUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: gqlBody(ingestMutation, { recording }),
      });
      const text = await res.text();
      this.tally.count('ingestRecording (service)', 200, res.status, text);
      const queued = res.status === 200 ? JSON.parse(text).data?.ingestRecording?.eventsQueued : undefined;
      if (typeof queued === 'number') this.ingested.set(recordingId, { at, queued });
      else this.failures.push(`recording ${recordingId}: ${res.status} ${text.slice(0, 300)}`);
    } catch (error) {
      this.failures.push(
        `recording ${recordingId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.lanes);
  }
}
