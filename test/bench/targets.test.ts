/** The targets: each PASS or FAIL from the report's figures, none weakened. */
import { describe, expect, it } from 'vitest';
import type { BenchReport, Measurement, PageSizes, ScenarioReport } from '../../bench/report.js';
import { serviceTargets } from '../../bench/targets.js';

const measured = (rps: number, peakRssMb = 300): Measurement => ({
  rps,
  p50: 1,
  p99: 2,
  requests: rps,
  serverCpuMs: 1,
  engineCpuMs: 1,
  loadAverage: 1,
  peakRssMb,
  errorStatus: 0,
  errors: 0,
  timeouts: 0,
  wireBytesPerRequest: 1,
  commandsPerRequest: 4,
  commandsByName: {},
  rounds: [],
});

const scenario = (id: string, results: ScenarioReport['results'], equality = 'byte-identical') => ({
  id,
  name: id,
  request: { method: 'GET', path: '/' },
  responseBytes: 1,
  equality,
  results,
});

const page = (p: Partial<PageSizes> & Pick<PageSizes, 'page'>): PageSizes => ({
  target: 'service',
  limit10: 4,
  limit100: 4,
  getMore10: 0,
  getMore100: 0,
  forcedGetMore10: 0,
  forcedGetMore100: 0,
  byName10: {},
  byName100: {},
  ...p,
});

type FanoutReport = BenchReport['fanout'][number];
const fanout = (f: Partial<FanoutReport> & Pick<FanoutReport, 'phase'>): FanoutReport => ({
  status: 'measured',
  recordings: 1000,
  webhooks: 10,
  ingested: 1000,
  expected: 10000,
  delivered: 10000,
  late: 0,
  lost: 0,
  outbox: {},
  duplicates: 0,
  badSignatures: 0,
  ingestSeconds: 1,
  ingestPerSecond: 1000,
  deliveriesPerSecond: 1500,
  p50: 50,
  p99: 100,
  max: 100,
  censored: 0,
  ingestErrors: 0,
  seconds: 7,
  rate: 0,
  peakRssMb: 300,
  commandsPerIngest: null,
  commandsPerDelivery: null,
  ...f,
});

const statusOf = (targets: ReturnType<typeof serviceTargets>, name: RegExp) =>
  targets.filter((t) => name.test(t.name)).map((t) => t.status);

const none = { scenarios: [], pageSizes: [], fanout: [] };

describe('serviceTargets', () => {
  it('holds a page without content to 4 commands and one with every include to 10, at both sizes', () => {
    const targets = serviceTargets({
      ...none,
      pageSizes: [
        page({ page: 'without content', limit10: 4, limit100: 5 }),
        page({ page: 'every include', limit10: 10, limit100: 10 }),
        page({ page: 'every include', target: 'direct', limit10: 14, limit100: 14 }),
      ],
    });
    expect(statusOf(targets, /without content/)).toEqual(['FAIL']);
    expect(statusOf(targets, /every include/)).toEqual(['PASS']); // the direct handler is not held to it
  });

  it('does not count the getMores the 16 MiB reply limit forced, and says how many there were', () => {
    const [target] = serviceTargets({
      ...none,
      pageSizes: [page({ page: 'every include', limit100: 11, getMore100: 1, forcedGetMore100: 1 })],
    });
    expect(target!.status).toBe('PASS');
    expect(target!.detail).toContain('1 getMore forced by the 16 MiB reply limit');
  });

  it('wants every include at least as fast as the direct handler and a tenth of the ceiling', () => {
    const targets = serviceTargets({
      ...none,
      scenarios: [
        scenario('rest-include', { service: measured(100), direct: measured(99), ceiling: measured(1001) }),
        scenario('transcript', { service: measured(99), direct: measured(100), ceiling: measured(200) }),
      ],
    });
    expect(statusOf(targets, /^rest-include >= 1\.0x the direct/)).toEqual(['PASS']);
    expect(statusOf(targets, /^rest-include >= 0\.1x the ceiling/)).toEqual(['FAIL']);
    expect(statusOf(targets, /^transcript >= 1\.0x the direct/)).toEqual(['FAIL']);
  });

  it('fails a rate against a direct handler that does not answer like the service', () => {
    const targets = serviceTargets({
      ...none,
      scenarios: [
        scenario('transcript', { service: measured(200), direct: measured(100) }, 'MISMATCH at $.x'),
      ],
    });
    expect(statusOf(targets, /direct/)).toEqual(['FAIL']);
  });

  it('holds the burst to 1,000 deliveries/s with nothing lost or duplicated, and the steady p99 under 250 ms', () => {
    const targets = serviceTargets({
      ...none,
      fanout: [fanout({ phase: 'steady', rate: 5, p99: 250 }), fanout({ phase: 'burst', duplicates: 1 })],
    });
    expect(statusOf(targets, /steady/)).toEqual(['FAIL']);
    expect(statusOf(targets, /burst/)).toEqual(['FAIL']);
    const passing = serviceTargets({
      ...none,
      fanout: [fanout({ phase: 'steady', rate: 5, p99: 249 }), fanout({ phase: 'burst' })],
    });
    expect(passing.map((t) => t.status)).toEqual(['PASS', 'PASS']);
  });

  it('holds no target to the warm-up, however slow its cold start', () => {
    const targets = serviceTargets({
      ...none,
      fanout: [
        fanout({ phase: 'warm-up', deliveriesPerSecond: 500, p99: 900 }),
        fanout({ phase: 'steady', rate: 5, p99: 100 }),
        fanout({ phase: 'burst' }),
      ],
    });
    expect(targets.map((t) => t.name)).toEqual([
      expect.stringMatching(/^webhooks, steady/),
      expect.stringMatching(/^webhooks, burst/),
    ]);
    expect(targets.map((t) => t.status)).toEqual(['PASS', 'PASS']);
  });

  it('marks a fan-out phase that could not run as skipped', () => {
    const [target] = serviceTargets({
      ...none,
      fanout: [fanout({ phase: 'burst', status: 'skipped', reason: 'no webhooks' })],
    });
    expect(target).toMatchObject({ status: 'SKIPPED', detail: 'no webhooks' });
  });

  it('holds the peak RSS under every include, compressed or not, to 460 MB', () => {
    const targets = serviceTargets({
      ...none,
      scenarios: [
        scenario('rest-include', { service: measured(10, 400) }),
        scenario('rest-include-br', { service: measured(10, 461) }),
        scenario('transcript', { service: measured(10, 900) }),
      ],
    });
    const [rss] = targets.filter((t) => /RSS/.test(t.name));
    expect(rss).toMatchObject({ status: 'FAIL', detail: '461 MB (rest-include-br)' });
  });

  it('leaves out the targets of scenarios that did not run', () => {
    expect(serviceTargets(none)).toEqual([]);
  });
});
