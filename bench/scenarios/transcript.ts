/** `--only transcript`: REST GET /recordings/{id}/transcript of the dataset's longest transcript. */
import { benchAdmin } from '../dataset.js';
import { loadScenario } from './load-scenario.js';

export const transcript = loadScenario('transcript', (_run, { dataset }) => ({
  name: `REST transcript (${dataset.longest.entries} lines)`,
  request: {
    method: 'GET',
    path: `/external/v1/recordings/${dataset.longest.recordingId}/transcript`,
    headers: { 'x-api-key': benchAdmin.apiKey },
  },
}));
