/**
 * `--only media`: a large file streamed through a download link to a few clients at once, and how
 * much the service grows meanwhile (bench/media.ts).
 */
import { benchAdmin, FIRST_RECORDING_ID } from '../dataset.js';
import { runMediaScenario } from '../media.js';
import type { Scenario } from './scenario.js';

export const media: Scenario = {
  selectedBy: ['media'],
  needs: 'servers',
  run: async ({ opts, log, elapsed }, { server, uri }) => {
    log(`\nmedia: a ${opts.media.fileMb} MB file to ${opts.media.clients} clients at once (${elapsed()})`);
    const measured = await runMediaScenario({
      serviceUrl: server('service').url,
      servicePid: server('service').child.pid,
      engineUri: uri,
      db: 'bench',
      apiKey: benchAdmin.apiKey,
      recordingId: FIRST_RECORDING_ID,
      ...opts.media,
    });
    const result = measured.result;
    log(
      `  ${result.seconds.toFixed(1)} s, ${result.mbPerSecond.toFixed(0)} MB/s in all; service RSS ${result.rssBeforeMb.toFixed(0)} MB, +${result.rssGrowthMb.toFixed(1)} MB at most`,
    );
    return { media: result, problems: measured.problems };
  },
};
