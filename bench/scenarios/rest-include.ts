/**
 * `--only rest-include`: REST GET /meetings, a page of 10 with every include (transcripts and all
 * content: large answers); also compressed, as rest-include-br.
 */
import { allIncludes } from '../direct.js';
import type { LoadRequest } from '../load.js';
import { brotli, browserEncodings, loadScenario } from './load-scenario.js';
import { meetingsPage } from './rest-list.js';

const everyInclude = Object.keys(allIncludes)
  .map((name) => `${name}=true`)
  .join('&');

export const meetingsPageWithEveryInclude = (limit: number): LoadRequest =>
  meetingsPage(limit, `&${everyInclude}`);

export const restInclude = loadScenario('rest-include', () => ({
  name: 'REST GET /meetings, every include',
  request: meetingsPageWithEveryInclude(10),
}));

export const restIncludeBrotli = brotli(restInclude);

export const restIncludeBrowser = browserEncodings(restInclude);
