/**
 * Commands per request of a REST page at limit 10 and at limit 100, for the service and the direct
 * baseline (sequential probes, no load): a page must cost a number of commands that does not grow
 * with its size. Runs with rest-list (the page without content) and rest-include (every include).
 */
import { commandsPerRequest } from '../commands-per-request.js';
import type { LoadRequest } from '../load.js';
import type { PageSizes } from '../report.js';
import { meetingsPageWithEveryInclude } from './rest-include.js';
import { meetingsPage } from './rest-list.js';
import type { Scenario } from './scenario.js';

function pageSizes(
  page: PageSizes['page'],
  selectedBy: string,
  pageOf: (limit: number) => LoadRequest,
  probesAt100: number,
): Scenario {
  return {
    selectedBy: [selectedBy],
    needs: 'servers',
    run: async ({ log, elapsed }, servers) => {
      log(`\ncommands per request, REST page ${page}, page sizes 10 and 100 (${elapsed()})`);
      const rows: PageSizes[] = [];
      for (const target of ['service', 'direct'] as const) {
        const limit10 = (await commandsPerRequest(servers, target, pageOf(10), 5))!;
        const limit100 = (await commandsPerRequest(servers, target, pageOf(100), probesAt100))!;
        rows.push({
          target,
          page,
          limit10: limit10.perRequest,
          limit100: limit100.perRequest,
          getMore10: limit10.byName.getMore ?? 0,
          getMore100: limit100.byName.getMore ?? 0,
          forcedGetMore10: limit10.forcedGetMores,
          forcedGetMore100: limit100.forcedGetMores,
          byName10: limit10.byName,
          byName100: limit100.byName,
        });
        log(
          `  ${target.padEnd(8)} limit 10: ${limit10.perRequest} ${JSON.stringify(limit10.byName)}  ` +
            `limit 100: ${limit100.perRequest} ${JSON.stringify(limit100.byName)} (${limit100.forcedGetMores} getMore forced by the 16 MiB reply limit)`,
        );
      }
      return { pageSizes: rows };
    },
  };
}

export const restListPageSizes = pageSizes('without content', 'rest-list', meetingsPage, 5);
// 100 pages with every include are large (tens of MB): fewer probes.
export const restIncludePageSizes = pageSizes(
  'every include',
  'rest-include',
  meetingsPageWithEveryInclude,
  2,
);
