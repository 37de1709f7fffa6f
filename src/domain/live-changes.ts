/**
 * Live changes (the `meetingChanged` subscription): the change log (change-log.ts) followed by the
 * poller (live-feed.ts), each change handed to every subscriber whose filter (the change feed's,
 * meeting-changes.ts) takes it, whichever process logged it. Polling starts where the log is
 * settled when the first subscriber comes, and like every reader of the log it never skips a
 * change logged late.
 */
import type { Collections } from '../db/collections.js';
import { OutageBackoff, type OutageLog } from '../db/outage.js';
import { type ChangeEntry, readLog, settledPosition } from './change-log.js';
import { LiveFeed } from './live-feed.js';

const quiet: OutageLog = { warn() {}, info() {} };

export class LiveChanges extends LiveFeed<ChangeEntry> {
  /** Where the next poll reads from. */
  private position = 0;

  constructor(
    private readonly collections: Collections,
    log: OutageLog = quiet,
    pollMs = 500,
  ) {
    super('live changes', new OutageBackoff(log, 'live changes', pollMs, 5_000));
  }

  protected async prime(): Promise<void> {
    this.position = (await settledPosition(this.collections, new Date())).position;
  }

  protected async next(): Promise<{ items: ChangeEntry[]; more: boolean }> {
    const read = await readLog(this.collections, this.position, 1000, new Date());
    this.position = read.end;
    return { items: read.entries, more: read.more };
  }
}
