/**
 * `--only changes`: what a page of the change feed costs as the history grows (issue 34: a page
 * costs a bounded number of round trips whatever the history length). A service of its own with the
 * demo data; a page of `meetingChanges` (from the oldest change kept, and from the feed's current
 * cursor) and of `GET /meetings?updated_after=` is counted in commands and timed, first with the
 * demo's history, then again after thousands more changes stored through the ingestion mutation.
 */
import { createHash } from 'node:crypto';
import { keyOf } from '../../test/support/app.js';
import { testRecording } from '../../test/support/recording.js';
import { commandsOf } from '../commands-per-request.js';
import { Child } from '../ipc.js';
import { fetchOnce, type LoadRequest, percentile } from '../load.js';
import type { TargetCheck } from '../report.js';
import { demoServiceEnv } from '../service-env.js';
import type { Scenario } from './scenario.js';

const SERVICE_TOKEN = 'svc_bench_changes_0123456789';
/** Changes stored between the two measurements: recordings created, then each stored again changed. */
const RECORDINGS = 1_000;
const VERSIONS = 4;
const TIMED = 30;

const tom = { email: 'tom.baker@acme.test', key: keyOf('team admin (Sales)') };
const json = { 'content-type': 'application/json', 'x-api-key': tom.key };

const feedPage = (after: string | null): LoadRequest => ({
  method: 'POST',
  path: '/graphql',
  headers: json,
  body: JSON.stringify({
    query: `query($after: String) { meetingChanges(after: $after, first: 100) {
      edges { node { recordingId kinds removed meeting { title updatedAt } } } pageInfo { endCursor hasNextPage } } }`,
    variables: { after },
  }),
});

interface Cost {
  commands: number;
  byName: Record<string, number>;
  p50Ms: number;
}

export const changes: Scenario = {
  selectedBy: ['changes'],
  needs: 'own processes',
  run: async ({ opts, log, elapsed, children }) => {
    log(`\nChange feed: a page's cost as the history grows (${elapsed()})`);
    const child = Child.start(
      'service (demo data)',
      'bench/service.ts',
      {
        ...demoServiceEnv(opts.logLevel),
        DELIVERY_WORKER: 'false',
        RATE_LIMIT_GENERAL: '100000000',
        RATE_LIMIT_HEAVY: '100000000',
        INGEST_TOKEN_SHA256: createHash('sha256').update(SERVICE_TOKEN).digest('hex'),
      },
      { quiet: true },
    );
    children.push(child);
    const { url } = (await child.ready) as { url: string };
    const service = { url, child };
    const since = new Date().toISOString();

    const cursorNow = async () => {
      const answer = await fetchOnce(url, {
        method: 'POST',
        path: '/graphql',
        headers: json,
        body: JSON.stringify({ query: '{ meetingChangesCursor }' }),
      });
      return JSON.parse(answer.body.toString()).data.meetingChangesCursor as string;
    };
    const measure = async (name: string, request: LoadRequest): Promise<Cost> => {
      const counted = await commandsOf(service, request, 5);
      const times: number[] = [];
      for (let i = 0; i < TIMED; i++) {
        const started = performance.now();
        const answer = await fetchOnce(url, request);
        times.push(performance.now() - started);
        if (answer.status !== 200 || answer.body.includes('"errors"'))
          throw new Error(`${name} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
      }
      const p50Ms = percentile(
        times.sort((a, b) => a - b),
        50,
      );
      log(
        `  ${name.padEnd(64)} ${counted.perRequest} commands ${JSON.stringify(counted.byName)}, p50 ${p50Ms.toFixed(1)} ms`,
      );
      return { commands: counted.perRequest, byName: counted.byName, p50Ms };
    };
    const measureAll = async (history: string) => ({
      oldest: await measure(`${history}: meetingChanges from the oldest kept`, feedPage(null)),
      current: await measure(
        `${history}: meetingChanges from the current cursor`,
        feedPage(await cursorNow()),
      ),
      updated: await measure(`${history}: GET /meetings?updated_after=`, {
        method: 'GET',
        path: `/external/v1/meetings?limit=100&updated_after=${encodeURIComponent(since)}`,
        headers: { 'x-api-key': tom.key },
      }),
    });

    const short = await measureAll('demo history');
    // Thousands of changes, four writers at once, through the ingestion mutation.
    const ingest = async (recording: object) => {
      const answer = await fetchOnce(url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SERVICE_TOKEN}` },
        body: JSON.stringify({
          query: 'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
          variables: { r: JSON.stringify(recording) },
        }),
      });
      if (answer.status !== 200 || answer.body.includes('"errors"'))
        throw new Error(`ingestion answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
    };
    const started = performance.now();
    for (let version = 0; version < VERSIONS; version++) {
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = next++; i < RECORDINGS; i = next++) {
            const id = 970_001 + i;
            await ingest(
              testRecording(id, tom.email, Date.parse('2026-11-01T09:00:00Z') + i * 3600_000, {
                title: `Bench recording ${id}, version ${version}`,
                sharing: { users: [], teams: version % 2 ? ['Sales'] : [], all_teams: false },
              }),
            );
          }
        }),
      );
    }
    log(
      `  stored ${RECORDINGS * VERSIONS} changes in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const long = await measureAll(`${RECORDINGS * VERSIONS} more changes`);
    await child.stop();

    const targets: TargetCheck[] = (['oldest', 'current', 'updated'] as const).map((which) => {
      const name = {
        oldest: 'a page of meetingChanges from the oldest change kept',
        current: 'a page of meetingChanges from the current cursor',
        updated: 'a page of GET /meetings?updated_after=',
      }[which];
      const [before, after] = [short[which], long[which]];
      return {
        name: `Change feed: ${name} costs the same commands with ${RECORDINGS * VERSIONS} more changes logged`,
        status: after.commands <= before.commands ? 'PASS' : 'FAIL',
        detail: `${after.commands} commands against ${before.commands} (${JSON.stringify(after.byName)}); p50 ${after.p50Ms.toFixed(1)} ms against ${before.p50Ms.toFixed(1)} ms, ${(after.p50Ms / before.p50Ms).toFixed(2)}x in one run`,
      };
    });
    return { targets };
  },
};
