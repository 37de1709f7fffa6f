/**
 * Live changes (the `meetingChanged` subscription): the change log (change-log.ts) followed by one
 * poller per process while someone subscribes, each change handed to every subscriber whose filter
 * (the change feed's, meeting-changes.ts) takes it. Whichever process logged it: the log is in the
 * database. Polling starts where the log is settled when the first subscriber comes, and like
 * every reader of the log it never skips a change logged late.
 */
import type { Collections } from '../db/collections.js';
import { OutageBackoff, type OutageLog } from '../db/outage.js';
import { type ChangeEntry, readLog, settledPosition } from './change-log.js';
import { Channel } from './channel.js';

const quiet: OutageLog = { warn() {}, info() {} };

interface Subscriber {
  accepts(entry: ChangeEntry): boolean;
  channel: Channel<ChangeEntry>;
}

export class LiveChanges {
  private readonly subscribers = new Set<Subscriber>();
  /** Where the poller reads from next; null while nobody subscribes. */
  private position: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;
  private readonly outage: OutageBackoff;

  constructor(
    private readonly collections: Collections,
    log: OutageLog = quiet,
    pollMs = 500,
  ) {
    this.outage = new OutageBackoff(log, 'live changes', pollMs, 5_000);
  }

  /** Changes logged from now on that `accepts` lets through. */
  async subscribe(accepts: (entry: ChangeEntry) => boolean): Promise<AsyncIterableIterator<ChangeEntry>> {
    if (this.closed) throw new Error('live changes are closed');
    const subscriber: Subscriber = {
      accepts,
      channel: new Channel<ChangeEntry>(() => {
        this.subscribers.delete(subscriber);
        if (this.subscribers.size === 0) this.pause();
      }),
    };
    this.subscribers.add(subscriber);
    try {
      this.position ??= settledPosition(this.collections, new Date()).then((s) => s.position);
      await this.position;
    } catch (error) {
      this.position = null;
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

  private pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.position = null;
  }

  private schedule(delay = this.outage.delay()): void {
    if (this.timer || this.polling || this.closed || this.subscribers.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.poll();
    }, delay);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    let more = false;
    try {
      const from = await this.position;
      if (from === undefined || from === null) return;
      const read = await readLog(this.collections, from, 1000, new Date());
      if (this.position === null) return; // everyone left meanwhile
      this.position = Promise.resolve(read.end);
      more = read.more;
      for (const entry of read.entries)
        for (const s of this.subscribers) if (s.accepts(entry)) s.channel.push(entry);
      this.outage.succeeded();
    } catch (error) {
      // Read again from the same position at the next tick (later during an outage).
      this.outage.failed(error);
    } finally {
      this.polling = false;
      this.schedule(more ? 0 : undefined);
    }
  }
}
