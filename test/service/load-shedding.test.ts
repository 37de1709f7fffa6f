/**
 * Load shedding through the real server: a burst of every-include pages of 100 meetings from a few
 * keys is partly refused at once (429 per key, 503 for the process) with Retry-After, while health
 * and small queries keep being answered; estimates are released when answers are written, so the
 * service takes large requests again afterwards.
 */

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateContentBytes } from '../../src/graphql/admission.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const everyInclude =
  '/external/v1/meetings?limit=100&include_transcript=true&include_summary=true&include_action_items=true&include_highlights=true&include_crm_matches=true';
const keys = ['account admin', 'team admin (Sales)', 'member: all teams view', 'member: multiple teams'].map(
  keyOf,
);

let t: TestApp;
beforeAll(async () => {
  // The defaults of production for the per-key limit; a budget of three such pages (20 MB each).
  t = await startTestApp({ ADMISSION_HEAVY_PER_CREDENTIAL: '2', ADMISSION_BUDGET_MB: '64' });
});
afterAll(() => t?.close());

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
  });

  it('sheds part of a burst of 60 large pages with 429/503 and Retry-After; health and small queries answer meanwhile', async () => {
    const burst = Array.from({ length: 60 }, (_, i) =>
      fetch(`${t.url}${everyInclude}`, { headers: { 'x-api-key': keys[i % keys.length]! } }).then(
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
    // Generous on a loaded 2-core machine: what matters is that nothing waits behind the burst.
    const slowest = Math.max(...probes.map((p) => p.ms));
    expect(slowest, JSON.stringify(probes)).toBeLessThan(2_000);

    // Everything was given back: a large page is admitted again.
    const again = await fetch(`${t.url}${everyInclude}`, { headers: { 'x-api-key': keys[0]! } });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
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
      /http_requests_shed_total\{reason="(credential_concurrency|process_budget)"\} [1-9]/,
    );
  });
});
