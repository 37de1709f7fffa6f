import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/demo.js';
import { builtEntry, ensureBuild } from '../support/build.js';
import { dump, startTestDatabase, type TestDatabase } from './database.js';
import { smallDataset } from './fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI, built as production runs it, asynchronously: the embedded engine lives in this
 * process and must keep serving.
 */
function seed(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtEntry('seed'), ...args],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('npm run seed', { timeout: 60_000 }, () => {
  let db: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    [db] = await Promise.all([startTestDatabase(), ensureBuild()]);
    dir = await mkdtemp(join(tmpdir(), 'seeds-cli-'));
    env = { MONGODB_URI: db.uri, MONGODB_DB: db.dbName };
  }, 180_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await db.close();
  });

  async function file(name: string, content: unknown): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  it('refuses an invalid file with exit code 2, one problem per line, writing nothing', async () => {
    const bad = smallDataset();
    bad.meetings[0]!.calendar_invitees[2]!.email = 'bea-at-beta';
    bad.users[0]!.status = 'away' as 'active';
    const run = await seed(['--file', await file('bad.json', bad)], env);
    expect(run.code).toBe(2);
    const lines = run.stderr.split('\n');
    expect(lines).toContain('meetings[0].calendar_invitees[2].email: Invalid email address');
    expect(lines.some((l) => l.startsWith('users[0].status: Invalid option'))).toBe(true);
    expect(run.stderr).toContain('nothing was written');
    for (const collection of Object.values(db.collections)) expect(await collection.countDocuments()).toBe(0);
  });

  it('refuses a file that is not JSON, and a reference error, with exit code 2', async () => {
    const notJson = await seed(['--file', await file('broken.json', '{"organisations": [')], env);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('is not valid JSON');
    const bad = smallDataset();
    bad.meetings[1]!.recorded_by = 'nobody@acme.test';
    const run = await seed(['--file', await file('ref.json', bad)], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('meetings[1].recorded_by: no user "nobody@acme.test"');
  });

  it('says so when MONGODB_URI is unset (exit code 2)', async () => {
    const run = await seed(['--file', await file('ok.json', smallDataset())], { MONGODB_URI: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('MONGODB_URI is not set');
  });

  it('rejects unknown options and no option (exit code 2); --help exits 0', async () => {
    expect((await seed(['--nope'], env)).code).toBe(2);
    expect((await seed([], env)).code).toBe(2);
    const help = await seed(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--print-demo');
  });

  it('loads a valid file, twice, to the same result', async () => {
    const path = await file('ok.json', smallDataset());
    const first = await seed(['--file', path], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('meetings 2');
    const loaded = await dump(db.collections);
    expect((await seed(['--file', path], env)).code).toBe(0);
    expect(await dump(db.collections)).toEqual(loaded);
  });

  it('prints the demo dataset as JSON', async () => {
    const run = await seed(['--print-demo'], {});
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(demoDataset());
  });
});
