/**
 * Live updates of meetings whose content became ready (the `meetingContentReady` subscription),
 * whichever process stored them: the poller (live-feed.ts) reads the meetings whose
 * `contentReadyAt` lies in a recent window (indexed) and hands each new one to every subscriber
 * whose filter (visibility) accepts it.
 *
 * The window (`lookbackMs`) absorbs clock differences between processes and writes that land
 * late; meetings already seen are remembered for as long as they stay in it. Priming takes what
 * is in the window as seen: it was ready before anyone subscribed.
 */
import type { Collections } from '../db/collections.js';
import type { MeetingDoc } from '../db/documents.js';
import { OutageBackoff, type OutageLog } from '../db/outage.js';
import { LiveFeed } from './live-feed.js';

const quiet: OutageLog = { warn() {}, info() {} };

export class ContentReadyFeed extends LiveFeed<MeetingDoc> {
  /** recordingId → contentReadyAt (ms) of meetings already handed out or primed. */
  private readonly seen = new Map<number, number>();

  constructor(
    private readonly collections: Collections,
    log: OutageLog = quiet,
    pollMs = 500,
    private readonly lookbackMs = 30_000,
  ) {
    // Capped well inside the window, so the first poll after an outage still sees what it missed.
    super(
      'the content-ready feed',
      new OutageBackoff(log, 'the live feed', pollMs, Math.min(5_000, lookbackMs / 4)),
    );
  }

  private windowStart(): Date {
    return new Date(Date.now() - this.lookbackMs);
  }

  private async recent(): Promise<{ recordingId: number; contentReadyAt: Date }[]> {
    const docs = await this.collections.meetings
      .find(
        { contentReadyAt: { $gte: this.windowStart() } },
        { projection: { _id: 0, recordingId: 1, contentReadyAt: 1 } },
      )
      .toArray();
    return docs as unknown as { recordingId: number; contentReadyAt: Date }[];
  }

  protected async prime(): Promise<void> {
    this.seen.clear();
    for (const m of await this.recent()) this.seen.set(m.recordingId, m.contentReadyAt.getTime());
  }

  protected async next(): Promise<{ items: MeetingDoc[]; more: boolean }> {
    const recent = await this.recent();
    const fresh = recent.filter((m) => !this.seen.has(m.recordingId));
    for (const m of fresh) this.seen.set(m.recordingId, m.contentReadyAt.getTime());
    const oldest = this.windowStart().getTime();
    for (const [id, at] of this.seen) if (at < oldest) this.seen.delete(id);
    if (fresh.length === 0 || !this.listening) return { items: [], more: false };
    const meetings = await this.collections.meetings
      .find({ recordingId: { $in: fresh.map((m) => m.recordingId) } })
      .sort({ contentReadyAt: 1 })
      .toArray();
    return { items: meetings, more: false };
  }
}
