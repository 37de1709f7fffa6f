/**
 * `--only search`: GraphQL search one request at a time, as a person searches (bench/search.ts);
 * the phrase planted once in the dataset must be found in its meeting, at its moment.
 */
import { benchAdmin, FIRST_RECORDING_ID, generateMeeting, planted } from '../dataset.js';
import { runSearchScenario } from '../search.js';
import type { Scenario } from './scenario.js';

export const search: Scenario = {
  selectedBy: ['search'],
  needs: 'servers',
  run: async ({ opts, log, elapsed }, { server }) => {
    log(`\nsearch, one request at a time (${elapsed()})`);
    const shape = { minEntries: opts.dataset.minEntries, maxEntries: opts.dataset.maxEntries };
    const index = planted.index(opts.dataset.meetings);
    const meeting = generateMeeting(opts.dataset.seed, index, opts.dataset.meetings, shape);
    const transcript = meeting.transcript!;
    const measured = await runSearchScenario(server('service').url, benchAdmin.apiKey, {
      phrase: planted.phrase,
      recordingId: FIRST_RECORDING_ID + index,
      timestamp: transcript[planted.line(transcript.length)]!.timestamp,
    });
    for (const r of measured.results)
      log(
        `  ${r.name} (${r.search}, ${r.orderBy}): ${r.found} found, p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms`,
      );
    return { search: measured.results, problems: measured.problems };
  },
};
