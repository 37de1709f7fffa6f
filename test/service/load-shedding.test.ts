/**
 * Load shedding through the real server: a burst of every-include pages of 100 meetings from a few
 * keys is partly refused at once (429 per key, 503 for the process) with Retry-After, while health
 * and small queries keep being answered; estimates are released when answers are written, so the
 * service takes large requests again afterwards.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateContentBytes } from '../../src/graphql/admission.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { builtEntry, ensureBuild } from '../support/build.js';
import { waitForOutput } from '../support/processes.js';

const everyInclude =
  '/external/v1/meetings?limit=100&include_transcript=true&include_summary=true&include_action_items=true&include_highlights=true&include_crm_matches=true';
const keys = ['account admin', 'team admin (Sales)', 'member: all teams view', 'member: multiple teams'].map(
  keyOf,
);

let t: TestApp;
/** The service under load in its own process (its event loop is what health probes measure). */
let service: ChildProcess;
let serviceUrl: string;

async function startService(mongoUri: string): Promise<string> {
  service = spawn(process.execPath, [builtEntry('service')], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', MONGODB_URI: mongoUri, SEED_DEMO: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen = await waitForOutput(service, /"url":"http:\/\/[^"]+"/);
  return /"url":"(http:\/\/[^"]+)"/.exec(seen)![1]!;
}

beforeAll(async () => {
  // The defaults of production for the per-key limit; a budget of three such pages (20 MB each).
  [t] = await Promise.all([
    startTestApp({ ADMISSION_HEAVY_PER_CREDENTIAL: '2', ADMISSION_BUDGET_MB: '64' }),
    ensureBuild(),
  ]);
  // The same defaults, as production has them, in a process of its own on the same database.
  serviceUrl = await startService(t.app.mongoUri);
}, 180_000);
afterAll(async () => {
  service?.kill('SIGTERM');
  await t?.close();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

describe('load shedding', () => {
  it('estimates content from page sizes and the content selected, after @include', () => {
    const page = parse(
      'query($n: Int, $t: Boolean!) { meetings(first: $n) { edges { node { title transcript @include(if: $t) { text } } } } }',
    );
    expect(estimateContentBytes(page, { n: 100, t: true })).toBe(100 * 200_000);
    expect(estimateContentBytes(page, { n: 100, t: false })).toBe(0);
    expect(estimateContentBytes(page, { t: true })).toBe(10 * 200_000);
    expect(
      estimateContentBytes(parse('{ meeting(recordingId: 1) { defaultSummary { templateName } } }'), {}),
    ).toBe(4_000);
    // The REST door's pages select content as stored JSON: the same estimate.
    expect(
      estimateContentBytes(parse('{ meetings(first: 3) { edges { node { transcriptJson } } } }'), {}),
    ).toBe(3 * 200_000);
  });

  it('sheds part of a burst of 60 large pages with 429/503 and Retry-After; health and small queries answer meanwhile', async () => {
    const burst = Array.from({ length: 60 }, (_, i) =>
      fetch(`${serviceUrl}${everyInclude}`, { headers: { 'x-api-key': keys[i % keys.length]! } }).then(
        async (res) => ({
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          body: await res.text(),
        }),
      ),
    );
    // While the burst runs: liveness and a small query, one after the other.
    const probes: { what: string; status: number; ms: number }[] = [];
    const done = Promise.all(burst);
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    while (!finished) {
      const health = await timed(() => fetch(`${t.url}/healthz`));
      probes.push({ what: 'healthz', status: health.value.status, ms: health.ms });
      const small = await timed(() =>
        t.graphql('{ meetings(first: 5) { edges { node { title } } } }', {}, keys[0]),
      );
      probes.push({ what: 'small query', status: small.value.status, ms: small.ms });
      await new Promise((r) => setTimeout(r, 50));
    }
    const answers = await done;

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    expect([...byStatus.keys()].every((s) => [200, 429, 503].includes(s))).toBe(true);
    expect(byStatus.get(200) ?? 0).toBeGreaterThan(0);
    expect((byStatus.get(429) ?? 0) + (byStatus.get(503) ?? 0)).toBeGreaterThan(0);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.retryAfter).toBe('1');
      expect(JSON.parse(refused.body)).toEqual({ error: expect.any(String) });
    }
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.status === 200)).toBe(true);
    // Nothing waits behind the burst: what is not taken on is refused at once.
    const slowest = Math.max(...probes.map((p) => p.ms));
    console.log(
      `load shedding: ${JSON.stringify([...byStatus])}, ${probes.length} probes, slowest ${Math.round(slowest)} ms`,
    );
    expect(slowest, JSON.stringify(probes)).toBeLessThan(2_000);

    // Everything was given back: a large page is admitted again.
    const again = await fetch(`${serviceUrl}${everyInclude}`, { headers: { 'x-api-key': keys[0]! } });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  });

  it('gives the budget back when clients go away before their answers', async () => {
    const aborts = Array.from({ length: 12 }, (_, i) => {
      const controller = new AbortController();
      const request = fetch(`${t.url}${everyInclude}`, {
        headers: { 'x-api-key': keys[i % keys.length]! },
        signal: controller.signal,
      }).then(
        (res) => res.arrayBuffer().then(() => res.status),
        () => 'aborted' as const,
      );
      setTimeout(() => controller.abort(), 5 + i * 10);
      return request;
    });
    await Promise.all(aborts);
    // Whatever was admitted is given back once its answer is written or its client gone.
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      const res = await fetch(`${t.url}${everyInclude}`, { headers: { 'x-api-key': keys[0]! } });
      status = res.status;
      await res.arrayBuffer();
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });

  it('sheds on GraphQL with extensions.code and http status, and the metric counts it', async () => {
    const query = `{ meetings(first: 100) { edges { node { transcript { text } } } } }`;
    const results = await Promise.all(Array.from({ length: 8 }, () => t.graphql(query, {}, keys[1])));
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      const code = r.body.errors?.[0]?.extensions?.code;
      expect(['RATE_LIMITED', 'OVERLOADED']).toContain(code);
      expect(r.body.errors?.[0]?.extensions?.http?.status).toBe(r.status);
      expect(r.headers.get('retry-after')).toBe('1');
    }
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_requests_shed_total\{reason="(credential_concurrency|credential_budget|process_budget)"\} [1-9]/,
    );
  });
});
