/**
 * Send slots: at most `size` tasks run at once, the others wait in the order they came. The worker
 * sends every batch through one set, so batches overlap (the next one is prepared while the last
 * sends of the previous one are out) without more requests in flight than its concurrency.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next task waiting, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
