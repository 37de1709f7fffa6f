/**
 * Live updates of meetings whose content became ready, whichever process stored them: change
 * streams are not available on the embedded engine, so one poller per process reads the meetings
 * whose `contentReadyAt` lies in a recent window (indexed) and hands each new one to every
 * subscriber whose filter (visibility) accepts it.
 *
 * The window (`lookbackMs`) absorbs clock differences between processes and writes that land
 * late; meetings already seen are remembered for as long as they stay in it. Polling runs only
 * while someone subscribes; the first subscriber waits until the window is primed, so everything
 * ready after its subscription started reaches it and nothing from before does.
 */
import type { Collections } from '../db/collections.js';
import type { MeetingDoc } from '../db/documents.js';
import { OutageBackoff, type OutageLog } from '../db/outage.js';
import { Channel } from './channel.js';

const quiet: OutageLog = { warn() {}, info() {} };

interface Subscriber {
  accepts(meeting: MeetingDoc): boolean;
  channel: Channel<MeetingDoc>;
}

export class ContentReadyFeed {
  private readonly subscribers = new Set<Subscriber>();
  /** recordingId → contentReadyAt (ms) of meetings already handed out or primed. */
  private readonly seen = new Map<number, number>();
  private primed: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;
  private readonly outage: OutageBackoff;

  constructor(
    private readonly collections: Collections,
    log: OutageLog = quiet,
    pollMs = 500,
    private readonly lookbackMs = 30_000,
  ) {
    // Capped well inside the window, so the first poll after an outage still sees what it missed.
    this.outage = new OutageBackoff(log, 'the live feed', pollMs, Math.min(5_000, lookbackMs / 4));
  }

  /** Meetings that become ready from now on and that `accepts` lets through. */
  async subscribe(accepts: (meeting: MeetingDoc) => boolean): Promise<AsyncIterableIterator<MeetingDoc>> {
    if (this.closed) throw new Error('the content-ready feed is closed');
    const subscriber: Subscriber = {
      accepts,
      channel: new Channel<MeetingDoc>(() => {
        this.subscribers.delete(subscriber);
        if (this.subscribers.size === 0) this.pause();
      }),
    };
    this.subscribers.add(subscriber);
    try {
      this.primed ??= this.prime();
      await this.primed;
    } catch (error) {
      this.primed = null;
      subscriber.channel.end();
      throw error;
    }
    this.schedule();
    return subscriber.channel;
  }

  /** Ends every subscription and stops polling. */
  close(): void {
    this.closed = true;
    for (const s of [...this.subscribers]) s.channel.end();
    this.pause();
  }

  get subscriberCount(): number {
    return this.subscribers.size;
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

  /** Everything already in the window counts as seen: it was ready before anyone subscribed. */
  private async prime(): Promise<void> {
    this.seen.clear();
    for (const m of await this.recent()) this.seen.set(m.recordingId, m.contentReadyAt.getTime());
  }

  private pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.primed = null;
  }

  private schedule(): void {
    if (this.timer || this.polling || this.closed || this.subscribers.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.poll();
    }, this.outage.delay());
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const recent = await this.recent();
      const fresh = recent.filter((m) => !this.seen.has(m.recordingId));
      for (const m of fresh) this.seen.set(m.recordingId, m.contentReadyAt.getTime());
      const oldest = this.windowStart().getTime();
      for (const [id, at] of this.seen) if (at < oldest) this.seen.delete(id);
      if (fresh.length > 0 && this.subscribers.size > 0) {
        const meetings = await this.collections.meetings
          .find({ recordingId: { $in: fresh.map((m) => m.recordingId) } })
          .sort({ contentReadyAt: 1 })
          .toArray();
        for (const meeting of meetings)
          for (const s of this.subscribers) if (s.accepts(meeting)) s.channel.push(meeting);
      }
      this.outage.succeeded();
    } catch (error) {
      // A failed poll is retried at the next tick (later during an outage); the window still
      // covers what it missed, unless the outage outlasts it.
      this.outage.failed(error);
    } finally {
      this.polling = false;
      this.schedule();
    }
  }
}
