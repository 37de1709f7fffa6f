/** A run's log on stdout and its clock: how long it has run, as its log lines say it ("12 s"). */

export interface Progress {
  log: (line: string) => void;
  elapsed: () => string;
  /** performance.now() when the run began. */
  started: number;
}

export function startProgress(): Progress {
  const started = performance.now();
  return {
    log: (line) => process.stdout.write(`${line}\n`),
    elapsed: () => `${((performance.now() - started) / 1000).toFixed(0)} s`,
    started,
  };
}
