/**
 * `--only engine`: the embedded engine as a database at a size where a scan would show
 * (bench/engine-scenario.ts), on an engine and a service of its own, before the shared servers start.
 */
import { runEngineScenario } from '../engine-scenario.js';
import type { Scenario } from './scenario.js';

export const engine: Scenario = {
  selectedBy: ['engine'],
  needs: 'own processes',
  run: async ({ opts, log, elapsed, serviceEnv }) => {
    log(
      `\nengine scenario: ${opts.engineSizes.small}, ${opts.engineSizes.large}, ${opts.engineSizes.full} meetings (${elapsed()})`,
    );
    const result = await runEngineScenario(
      {
        ...opts.engineSizes,
        seed: opts.dataset.seed,
        connections: opts.connections,
        duration: opts.duration,
        warmup: opts.warmup,
      },
      serviceEnv,
      log,
    );
    return { engine: result.report, targets: result.targets, problems: result.problems };
  },
};
