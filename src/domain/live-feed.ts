/**
 * What the live feeds share (content-ready-feed.ts, live-changes.ts): change streams are not
 * available on the embedded engine, so each feed is one poller per process, which runs only while
 * someone subscribes and hands what it reads to every subscriber whose filter accepts it. The first
 * subscriber waits until the feed is primed (where its polling starts), so what comes after its
 * subscription reaches it and nothing from before does. A failed poll is tried again at the next
 * tick, later during an outage.
 */
import type { OutageBackoff } from '../db/outage.js';

/** A subscription: an async iterator fed by push, ended by its consumer (return) or by the feed (close). */
export class Channel<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private done = false;

  constructor(private readonly onEnd: () => void) {}

  push(value: T): void {
    if (this.done) return;
    if (this.waiting) {
      this.waiting({ value, done: false });
      this.waiting = null;
    } else this.queue.push(value);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.queue.length = 0;
    this.onEnd();
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

interface Subscriber<T> {
  accepts(item: T): boolean;
  channel: Channel<T>;
}

export abstract class LiveFeed<T> {
  private readonly subscribers = new Set<Subscriber<T>>();
  private primed: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;

  protected constructor(
    private readonly name: string,
    private readonly outage: OutageBackoff,
  ) {}

  /** Where polling starts: what is there when the first subscriber comes is not handed out. */
  protected abstract prime(): Promise<void>;

  /** One poll: what to hand out, in order, and whether more waits already (poll again at once). */
  protected abstract next(): Promise<{ items: T[]; more: boolean }>;

  /** Whether anyone listens (a poll may skip reading what nobody would get). */
  protected get listening(): boolean {
    return this.subscribers.size > 0;
  }

  /** What comes from now on that `accepts` lets through. */
  async subscribe(accepts: (item: T) => boolean): Promise<AsyncIterableIterator<T>> {
    if (this.closed) throw new Error(`${this.name} is closed`);
    const subscriber: Subscriber<T> = {
      accepts,
      channel: new Channel<T>(() => {
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

  private pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.primed = null;
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
      const next = await this.next();
      more = next.more;
      for (const item of next.items)
        for (const s of this.subscribers) if (s.accepts(item)) s.channel.push(item);
      this.outage.succeeded();
    } catch (error) {
      this.outage.failed(error);
    } finally {
      this.polling = false;
      this.schedule(more ? 0 : undefined);
    }
  }
}
