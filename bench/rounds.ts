/**
 * Rounds: the servers of a scenario are measured in turn, round after round (service, direct,
 * ceiling, service, direct, ceiling...), so a slow drift of a noisy machine touches them alike;
 * each server is then represented by its median round.
 */

/** What one round of load against one server measured. */
export interface RoundFigures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** CPU time per request of the serving process and of the engine, ms (process.cpuUsage deltas). */
  serverCpuMs: number;
  engineCpuMs: number;
  /** The machine's 1-minute load average when the round ended. */
  loadAverage: number;
  peakRssMb: number;
  /** Responses with a status of 400 or more. */
  errorStatus: number;
  /** Socket errors and timeouts. */
  errors: number;
  timeouts: number;
  /** Bytes on the wire per response, headers included. */
  wireBytesPerRequest: number;
}

/**
 * The round with the median rate (the lower middle one for an even count), with what must hold
 * over every round instead: the highest peak RSS, and the failures of all rounds summed.
 */
export function medianRound(rounds: readonly RoundFigures[]): RoundFigures {
  if (rounds.length === 0) throw new Error('no rounds');
  const byRate = [...rounds].sort((a, b) => a.rps - b.rps);
  const median = byRate[Math.floor((byRate.length - 1) / 2)]!;
  const sum = (pick: (r: RoundFigures) => number) => rounds.reduce((n, r) => n + pick(r), 0);
  return {
    ...median,
    peakRssMb: Math.max(...rounds.map((r) => r.peakRssMb)),
    errorStatus: sum((r) => r.errorStatus),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}
