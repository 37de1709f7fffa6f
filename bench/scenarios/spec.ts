/**
 * `--only spec`: MongoDB's own unified spec tests (CRUD, index and collection management) run
 * against the embedded engine as a standalone 8.0, through the driver, by the engine package's
 * runner (`npm run spec` there). Target (issue 33): at least 95% of the tests a standalone 8.0
 * can run pass. The tests are MongoDB's, fetched into the package's ignored .spec-tests/ (its
 * scripts/fetch-spec-tests.sh); without them the scenario says so and checks nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Scenario } from './scenario.js';

export const SPEC_PASS_RATE = 95;

const engineDir = fileURLToPath(new URL('../../packages/embedded-mongo/', import.meta.url));
const suites = ['crud/tests/unified', 'index-management/tests', 'collection-management/tests'].map(
  (suite) => `.spec-tests/source/${suite}`,
);

export const spec: Scenario = {
  selectedBy: ['spec', 'engine'],
  needs: 'own processes',
  run: async ({ log, elapsed }) => {
    log(`\nMongoDB's spec tests against the engine as a standalone 8.0 (${elapsed()})`);
    if (!suites.every((suite) => existsSync(path.join(engineDir, suite)))) {
      log('  not run: fetch them first (packages/embedded-mongo/scripts/fetch-spec-tests.sh)');
      return {};
    }
    const out = mkdtempSync(path.join(tmpdir(), 'spec-'));
    try {
      const json = path.join(out, 'results.json');
      await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'spec/cli.ts', '--server-version', '8.0', '--json', json, ...suites],
        { cwd: engineDir, maxBuffer: 64 * 1024 * 1024 },
      );
      const results = JSON.parse(readFileSync(json, 'utf8')) as { status: string }[];
      const count = (status: string) => results.filter((r) => r.status === status).length;
      const [passed, failed, skipped] = [count('passed'), count('failed'), count('skipped')];
      const rate = (100 * passed) / Math.max(1, passed + failed);
      log(`  ${passed} passed, ${failed} failed, ${skipped} skipped`);
      return {
        targets: [
          {
            name: `engine: at least ${SPEC_PASS_RATE}% of MongoDB's spec tests a standalone 8.0 runs pass (CRUD, index and collection management)`,
            status: rate >= SPEC_PASS_RATE ? 'PASS' : 'FAIL',
            detail: `${rate.toFixed(1)}% (${passed} of ${passed + failed}; ${skipped} skipped)`,
          },
        ],
      };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};
