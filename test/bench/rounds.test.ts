/** A server is represented by its median round; what must hold in every round is taken over all. */
import { describe, expect, it } from 'vitest';
import { medianRound, type RoundFigures } from '../../bench/rounds.js';

const round = (rps: number, more: Partial<RoundFigures> = {}): RoundFigures => ({
  rps,
  p50: 1000 / rps,
  p99: 2000 / rps,
  requests: rps * 4,
  serverCpuMs: 1,
  engineCpuMs: 1,
  loadAverage: 1,
  peakRssMb: 100,
  errorStatus: 0,
  errors: 0,
  timeouts: 0,
  wireBytesPerRequest: 10,
  ...more,
});

describe('medianRound', () => {
  it('takes the round of median rate, with its latencies', () => {
    const median = medianRound([round(90), round(30), round(60)]);
    expect(median.rps).toBe(60);
    expect(median.p50).toBeCloseTo(1000 / 60);
  });

  it('takes the lower middle round of an even count', () => {
    expect(medianRound([round(40), round(10), round(30), round(20)]).rps).toBe(20);
  });

  it('keeps the highest peak RSS and every failure of all rounds', () => {
    const median = medianRound([
      round(10, { peakRssMb: 500, errorStatus: 1 }),
      round(20, { peakRssMb: 200, timeouts: 2 }),
      round(30, { peakRssMb: 300, errors: 3 }),
    ]);
    expect(median.rps).toBe(20);
    expect(median.peakRssMb).toBe(500);
    expect([median.errorStatus, median.errors, median.timeouts]).toEqual([1, 3, 2]);
  });

  it('refuses no rounds', () => {
    expect(() => medianRound([])).toThrow();
  });
});
