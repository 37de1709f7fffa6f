/**
 * A live subscription (content-ready-feed.ts, live-changes.ts): an async iterator fed by push,
 * ended by its consumer (return) or by the feed (close).
 */
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
