/**
 * What a scenario of `npm run bench` is, so that run.ts can list them in the order they run: the
 * `--only` ids that run it, what it needs (processes of its own, or the servers it shares with the
 * other scenarios: servers.ts), and how it runs into rows of the report.
 */
import type { BenchReport } from '../report.js';
import type { RunContext } from '../run-context.js';
import type { Servers } from '../servers.js';

/** What a scenario adds to the report: rows of the sections it fills, targets checked, problems seen. */
export type ScenarioRows = Partial<
  Pick<
    BenchReport,
    | 'scenarios'
    | 'pageSizes'
    | 'fanout'
    | 'search'
    | 'media'
    | 'engine'
    | 'credentials'
    | 'targets'
    | 'problems'
  >
>;

export type Scenario = {
  /** The `--only` ids that run it (any of them). */
  selectedBy: readonly string[];
} & (
  | {
      /** It starts the processes it measures itself, and stops them. */
      needs: 'own processes';
      run: (run: RunContext) => Promise<ScenarioRows>;
    }
  | {
      /** The engine with the dataset, the service, the baselines (servers.ts). */
      needs: 'servers';
      run: (run: RunContext, servers: Servers) => Promise<ScenarioRows>;
    }
);

export const isSelected = (scenario: Scenario, run: RunContext): boolean =>
  scenario.selectedBy.some((id) => run.wanted(id));

/**
 * Whether the shared servers are started: unless `--only` names scenarios with processes of their
 * own alone (an id no scenario answers to still starts them).
 */
export function serversWanted(scenarios: readonly Scenario[], run: RunContext): boolean {
  const standalone = new Set(
    scenarios.filter((s) => s.needs === 'own processes').flatMap((s) => s.selectedBy),
  );
  return !run.opts.only || [...run.opts.only].some((id) => !standalone.has(id));
}
