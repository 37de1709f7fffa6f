/**
 * `npm run bench`: seeds a generated dataset into an embedded engine running in its own process,
 * starts the service (and the two baselines) in their own processes, and drives each over
 * loopback with wrk (a process of its own) at a fixed concurrency, the servers in turn for a few
 * rounds. Exits 1 when a target fails. See docs/contributors/benchmark.md.
 *
 *   npm run bench -- --help
 *   npm run bench -- --compare bench/results/a.json bench/results/b.json
 */
import { benchOptions, usage } from './options.js';
import { compareReports } from './report.js';
import { startRun } from './run-context.js';
import { gatherReport, writeReport } from './run-report.js';
import { changes } from './scenarios/changes.js';
import { defer } from './scenarios/defer.js';
import { engine } from './scenarios/engine.js';
import { fanout } from './scenarios/fanout.js';
import { graphql, graphqlBrotli, graphqlBrowser } from './scenarios/graphql.js';
import { mcp } from './scenarios/mcp.js';
import { media } from './scenarios/media.js';
import { oauth } from './scenarios/oauth.js';
import { restIncludePageSizes, restListPageSizes } from './scenarios/page-sizes.js';
import { restInclude, restIncludeBrotli, restIncludeBrowser } from './scenarios/rest-include.js';
import { restList } from './scenarios/rest-list.js';
import { isSelected, type Scenario, type ScenarioRows, serversWanted } from './scenarios/scenario.js';
import { search } from './scenarios/search.js';
import { spec } from './scenarios/spec.js';
import { transcript } from './scenarios/transcript.js';
import { type Servers, startServers } from './servers.js';

/** Every scenario, in the order they run (those with processes of their own first). */
const scenarios: readonly Scenario[] = [
  engine,
  spec,
  oauth,
  changes,
  restList,
  mcp,
  restInclude,
  restIncludeBrotli,
  restIncludeBrowser,
  graphql,
  graphqlBrotli,
  graphqlBrowser,
  defer,
  transcript,
  restListPageSizes,
  restIncludePageSizes,
  search,
  media,
  fanout,
];

async function main(): Promise<number> {
  const opts = benchOptions();
  if (opts.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (opts.compare) {
    if (opts.compare.length !== 2) throw new Error('--compare takes two JSON reports');
    process.stdout.write(`${compareReports(opts.compare[0]!, opts.compare[1]!)}\n`);
    return 0;
  }
  const run = startRun(opts);
  try {
    const selected = scenarios.filter((scenario) => isSelected(scenario, run));
    const rows: ScenarioRows[] = [];
    for (const scenario of selected)
      if (scenario.needs === 'own processes') rows.push(await scenario.run(run));
    let servers: Servers | undefined;
    if (serversWanted(scenarios, run)) {
      servers = await startServers(run);
      for (const scenario of selected)
        if (scenario.needs === 'servers') rows.push(await scenario.run(run, servers));
    }
    return writeReport(run, gatherReport(run, rows, servers?.dataset));
  } finally {
    // The servers first, then the engine they use.
    for (const child of run.children.reverse()) await child.stop().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
