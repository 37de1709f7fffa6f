/**
 * How far behind this process's event loop runs: a timer due every SAMPLE_MS notes how late it
 * fired, and the delay is the largest lateness of about the last second. A stall still in progress
 * counts too (the time since the timer last ran), so a request or a driver timeout handled at the
 * end of a long turn sees the turn it waited for. (node's monitorEventLoopDelay records a stall
 * only when its own timer runs, which may come after the callbacks that need to know.)
 */
const SAMPLE_MS = 20;
/** Lateness is kept for one window and the next, so the delay covers 0.5 to 1 s back. */
const WINDOW_MS = 500;

export class LoopDelay {
  private lastRun = performance.now();
  private windowStart = this.lastRun;
  private currentMax = 0;
  private previousMax = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref(); // a measurement never keeps the process alive
  }

  /** Milliseconds the loop ran behind lately (0 when it keeps up). */
  ms(): number {
    const stalled = performance.now() - this.lastRun - SAMPLE_MS;
    return Math.max(this.currentMax, this.previousMax, stalled, 0);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.now();
    const late = now - this.lastRun - SAMPLE_MS;
    this.lastRun = now;
    if (now - this.windowStart >= WINDOW_MS) {
      // A window with no sample at all (a stall longer than it) still counts through `late`.
      this.previousMax = now - this.windowStart >= 2 * WINDOW_MS ? 0 : this.currentMax;
      this.currentMax = 0;
      this.windowStart = now;
    }
    this.currentMax = Math.max(this.currentMax, late);
  }
}
