/**
 * The real process, as production runs it (the built entry points): --help, bad configuration, and
 * startup failures (one line on stderr, no stack, exit 1) that never show a password. `npm start`'s
 * banner and SIGTERM, which are timed: process-timing.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { type EmbeddedMongo, startEmbeddedMongo } from '@meetings/embedded-mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEntry, ensureBuild } from '../support/build.js';
import { exitOf, outputOf } from '../support/processes.js';

const entry = [builtEntry('service')];
const workerEntry = [builtEntry('worker')];
const password = 'hunter2-s3cret';

let engine: EmbeddedMongo;
let busy: Server;
beforeAll(async () => {
  [engine] = await Promise.all([startEmbeddedMongo(), ensureBuild()]);
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
}, 180_000);
afterAll(async () => {
  busy?.close();
  await engine?.close();
});

/** Runs an entry point to its end (bounded by the test timeout) with `env` added. */
async function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: 'info', SEED_DEMO: 'false', PORT: '0', WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = outputOf(child);
  const { code } = await exitOf(child);
  return { code, ...output };
}

/** One line on stderr, without a stack trace. */
function expectOneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

describe('the service process', () => {
  it('--help prints the variables and exits 0', () => {
    const run = spawnSync(process.execPath, [...entry, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('MONGODB_URI');
    expect(run.stdout).toContain('EMBEDDED_MONGO_PORT');
  });

  it('refuses bad configuration with exit code 2 and names the variable', () => {
    const run = spawnSync(process.execPath, entry, { encoding: 'utf8', env: { ...process.env, PORT: 'x' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('PORT must be an integer');
  });
});

describe('startup failures: one line on stderr, exit 1', () => {
  it('a busy port is named', async () => {
    const { port } = busy.address() as { port: number };
    const { code, stderr } = await run(entry, { PORT: String(port) });
    expect(code).toBe(1);
    expect(expectOneLine(stderr)).toBe(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
  });

  it.each([
    ['server', entry],
    ['worker', workerEntry],
  ])('the %s cannot reach the database', async (_, args) => {
    const uri = `mongodb://app:${password}@127.0.0.1:1/?serverSelectionTimeoutMS=500`;
    const { code, stdout, stderr } = await run(args, { MONGODB_URI: uri });
    expect(code).toBe(1);
    expect(expectOneLine(stderr)).toMatch(
      /^cannot reach MongoDB at mongodb:\/\/app:\*\*\*@127\.0\.0\.1:1\/.*ECONNREFUSED/,
    );
    expect(stdout + stderr).not.toContain(password);
  });

  it.each([
    ['malformed', `mongodb://app:${password}@`],
    ['with an unknown option', `mongodb://app:${password}@127.0.0.1:1/?noSuchOption=1`],
  ])('a URI the driver refuses (%s)', async (_, uri) => {
    const { code, stdout, stderr } = await run(entry, { MONGODB_URI: uri });
    expect(code).toBe(1);
    expect(expectOneLine(stderr)).toMatch(
      /^MONGODB_URI mongodb:\/\/app:\*\*\*@\S* is refused by the MongoDB driver: /,
    );
    expect(stdout + stderr).not.toContain(password);
  });
});

describe('MONGODB_URI credentials are never shown', () => {
  it('nor when the server refuses them', async () => {
    const uri = engine.uri.replace('mongodb://', `mongodb://app:${password}@`);
    const { code, stdout, stderr } = await run(entry, { MONGODB_URI: uri });
    expect(code).toBe(1);
    expectOneLine(stderr);
    expect(stdout + stderr).not.toContain(password);
  });

  it('nor the options that carry secrets, in the banner and the listening line', async () => {
    const uri = `${engine.uri}&tlsCertificateKeyFilePassword=${password}`;
    const child = spawn(process.execPath, entry, {
      env: { ...process.env, LOG_LEVEL: 'info', SEED_DEMO: 'false', PORT: '0', MONGODB_URI: uri },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    try {
      while (!/MongoDB: .*\n/.test(output.stderr) || !/"msg":"listening"/.test(output.stdout))
        await setTimeout(50);
      expect(output.stderr).toContain('tlsCertificateKeyFilePassword=***');
      expect(output.stdout + output.stderr).not.toContain(password);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('nor in a configuration error (exit 2)', async () => {
    const { code, stderr } = await run(entry, { MONGODB_URI: `postgres://app:${password}@db/x` });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'MONGODB_URI must be a mongodb:// or mongodb+srv:// URI (got "postgres://app:***@db/x")',
    );
    expect(stderr).not.toContain(password);
  });
});
