/** `--only rest-list`: REST GET /meetings, a page of 10 without content, as the account admin. */
import { benchAdmin } from '../dataset.js';
import type { LoadRequest } from '../load.js';
import { loadScenario } from './load-scenario.js';

/** GET /meetings as the account admin: a page of `limit`, and `query` (`&name=value...`) if given. */
export const meetingsPage = (limit: number, query = ''): LoadRequest => ({
  method: 'GET',
  path: `/external/v1/meetings?limit=${limit}${query}`,
  headers: { 'x-api-key': benchAdmin.apiKey },
});

export const restList = loadScenario('rest-list', () => ({
  name: 'REST GET /meetings',
  request: meetingsPage(10),
}));
