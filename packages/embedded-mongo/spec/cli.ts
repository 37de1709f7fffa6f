/**
 * `npm run spec -w @meetings/embedded-mongo -- [options] <file or folder>...`: runs MongoDB's unified
 * spec tests against the embedded engine (or MONGODB_URI) and prints how many pass. It is a
 * measure, so it exits 0 whatever the tests do; only a crash of the runner itself exits 1.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { runFile, type TestResult } from './runner.js';

const USAGE = `usage: npm run spec -- [options] <file.json | folder>...
  --server-version V   evaluate runOnRequirements as for server V (default: the server's buildInfo)
  --verbose            name each failing test with its reason, and count the skip reasons
  --json FILE          write every test's file, description, status and reason to FILE
  --timeout MS         fail a test that runs longer (default 10000)
Without MONGODB_URI each file runs against a fresh in-memory embedded engine.`;

const { values: options, positionals: paths } = parseArgs({
  allowPositionals: true,
  options: {
    'server-version': { type: 'string' },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
    timeout: { type: 'string', default: '10000' },
    help: { type: 'boolean', default: false },
  },
});
const timeoutMs = Number(options.timeout);
if (options.help || paths.length === 0 || !(timeoutMs > 0)) {
  console.log(USAGE);
  process.exit(options.help ? 0 : 2);
}

/** The .json files under `path` (itself when it is a file), in name order. */
async function testFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function counts(results: TestResult[]) {
  const count = (status: TestResult['status']) => results.filter((result) => result.status === status).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

const all: TestResult[] = [];
for (const path of paths) {
  const files = await testFiles(path);
  const ofPath: TestResult[] = [];
  for (const file of files) {
    const results = await runFile(file, { serverVersion: options['server-version'], timeoutMs });
    const { passed, failed, skipped } = counts(results);
    console.log(`${relative(process.cwd(), file)}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
    if (options.verbose) {
      for (const { test, reason } of results.filter((result) => result.status === 'failed')) {
        console.log(`  ✗ ${test}: ${reason}`);
      }
    }
    ofPath.push(...results);
  }
  if (paths.length > 1 && files.length > 1) {
    const { passed, failed, skipped } = counts(ofPath);
    console.log(`== ${path}: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
  all.push(...ofPath);
}

if (options.verbose && all.some((result) => result.status === 'skipped')) {
  const reasons = new Map<string, number>();
  for (const { reason } of all.filter((result) => result.status === 'skipped')) {
    reasons.set(reason ?? '', (reasons.get(reason ?? '') ?? 0) + 1);
  }
  console.log('\nskipped, by reason:');
  for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1]))
    console.log(`  ${count}  ${reason}`);
}
if (options.json) await writeFile(options.json, `${JSON.stringify(all, null, 2)}\n`);

const { passed, failed, skipped } = counts(all);
const runnable = passed + failed;
const rate = runnable === 0 ? 0 : (100 * passed) / runnable;
console.log(
  `\npassed ${passed}, failed ${failed}, skipped ${skipped} (runnable ${runnable}: pass rate ${rate.toFixed(1)}%)`,
);
