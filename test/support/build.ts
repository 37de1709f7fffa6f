/**
 * The compiled build (`npm run build`: dist/ and packages/embedded-mongo/dist/) for the tests that
 * run it, built only when it is missing or older than its sources. Two suites side by side (CI runs
 * Node 20's and Node 24's at once) must not both build: `npm run build` starts by deleting dist/,
 * under the other's running service. So CI builds once before the suites (this file run as a
 * script: `node --import tsx test/support/build.ts`), and a suite that finds the build stale builds
 * it under a lock, which the other waits for before it looks again.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitOf, isRunning, outputOf } from './processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Written last, after a build that succeeded: a build that failed half-way is no build. */
const stamp = path.join(root, 'dist', '.built');
/** What `npm run build` compiles or copies (folders count too: a file deleted changes its folder). */
const sources = [
  'src',
  'rest-compat',
  'seeds',
  'packages/embedded-mongo/src',
  'package.json',
  'packages/embedded-mongo/package.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'packages/embedded-mongo/tsconfig.json',
  'packages/embedded-mongo/tsconfig.build.json',
];

/** The latest change among `entry` and everything below it, in ms since the epoch. */
function latestChange(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(entry).map((name) => latestChange(path.join(entry, name))));
}

/** Whether dist/ was built, to its end, after the last change to its sources. */
export function buildIsFresh(): boolean {
  if (!existsSync(stamp)) return false;
  const builtAt = statSync(stamp).mtimeMs;
  return sources.every((source) => latestChange(path.join(root, source)) < builtAt);
}

/** A lock between the suites of this checkout, held by a running process (a dead one's is taken). */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const name = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const lock = path.join(tmpdir(), `meetings-build-${name}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = 0;
      try {
        holder = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // Just made, its pid not written yet.
      }
      if (holder && !isRunning(holder)) rmSync(lock, { recursive: true, force: true });
      else await delay(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A built entry point, `dist/src/cli/<name>.js`, as production runs it (the Dockerfile's commands):
 * for tests of what the service, the worker and the CLIs do. Starting one costs a third of
 * `node --import tsx src/cli/<name>.ts`, which compiles on load; the tests of the npm commands
 * themselves (signals.test.ts, process-timing.test.ts) run those. Call ensureBuild() first.
 */
export function builtEntry(name: 'service' | 'worker' | 'ingest' | 'keys' | 'seed'): string {
  return path.join(root, 'dist', 'src', 'cli', `${name}.js`);
}

/** Builds dist/ unless it is fresh; resolves once it is, with who built it. */
export async function ensureBuild(): Promise<'was fresh' | 'built' | 'built by another run'> {
  if (buildIsFresh()) return 'was fresh';
  return withLock(async () => {
    if (buildIsFresh()) return 'built by another run'; // the lock's previous holder
    const startedAt = new Date();
    const build = spawn('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = outputOf(build);
    const { code } = await exitOf(build);
    if (code !== 0) throw new Error(`npm run build failed:\n${output.stdout}${output.stderr}`);
    // Dated when the build started: a source changed while it ran makes it stale.
    writeFileSync(stamp, '');
    utimesSync(stamp, startedAt, startedAt);
    return 'built';
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.error(`dist/: ${await ensureBuild()}`);
}
