/**
 * `npm run engine` (src/cli.ts): the engine alone as a process, its data kept
 * across a SIGTERM and a start, its directory refused to a second engine, and bad arguments.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';

const cli = ['--import', 'tsx', new URL('../../src/cli.ts', import.meta.url).pathname];
const dir = mkdtempSync(path.join(tmpdir(), 'engine-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the CLI and waits for the connection string it prints. */
async function startCli(args: string[]): Promise<{ child: ChildProcess; uri: string; banner: string }> {
  const child = spawn(process.execPath, [...cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/^Data: .*$/m.test(out)) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`the engine exited (${code}) before its banner:\n${out}`)));
  });
  return { child, uri: /^MongoDB URI: (\S+)$/m.exec(banner)![1]!, banner };
}

describe('npm run engine', () => {
  it('keeps its data across a SIGTERM (exit 0) and a start; a second engine on its directory exits 1', async () => {
    const first = await startCli(['--port', '0', '--path', dir]);
    expect(first.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true$/);
    expect(first.banner).toMatch(new RegExp(`^Data: +${dir}$`, 'm'));
    const writer = new MongoClient(first.uri);
    await writer
      .db('app')
      .collection('notes')
      .insertOne({ _id: 'kept' as never, text: 'across a restart' });
    await writer.close();

    const second = spawnSync(process.execPath, [...cli, '--port', '0', '--path', dir], { encoding: 'utf8' });
    expect(second.status).toBe(1);
    expect(second.stderr.trim()).toBe(
      `the embedded engine's data directory ${dir} is in use by process ${first.child.pid}; stop that process, or choose another --path (or --in-memory)`,
    );

    first.child.kill('SIGTERM');
    expect(await once(first.child, 'exit')).toEqual([0, null]);
    expect(existsSync(path.join(dir, 'engine.pid'))).toBe(false); // its lock released

    const again = await startCli(['--port', '0', '--path', dir]);
    const reader = new MongoClient(again.uri);
    try {
      expect(await reader.db('app').collection('notes').findOne({})).toEqual({
        _id: 'kept',
        text: 'across a restart',
      });
    } finally {
      await reader.close();
      again.child.kill('SIGINT');
    }
    expect((await once(again.child, 'exit'))[0]).toBe(0);
  });

  it('a port in use: exit 1, saying so', async () => {
    const holder = await startCli(['--port', '0', '--in-memory']);
    const port = new URL(holder.uri).port;
    const run = spawnSync(process.execPath, [...cli, '--port', port, '--in-memory'], { encoding: 'utf8' });
    holder.child.kill('SIGTERM');
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      `cannot listen on 127.0.0.1:${port}: the port is already in use; stop what holds it or choose another --port`,
    );
  });

  it.each([
    ['an unknown option', ['--no-such-option'], "Unknown option '--no-such-option'"],
    ['a bad port', ['--port', 'x'], '--port must be an integer from 0 to 65535 (got "x")'],
    ['--path with --in-memory', ['--path', dir, '--in-memory'], '--path and --in-memory exclude each other'],
    [
      'a bad cache size',
      ['--cache-mb', 'lots'],
      '--cache-mb must be a number of megabytes, 0 or more (got "lots")',
    ],
  ])('%s: exit 2 with the usage', (_, args, message) => {
    const run = spawnSync(process.execPath, [...cli, ...args], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: embedded-mongo [options]');
  });

  it('--help prints the options and exits 0', () => {
    const run = spawnSync(process.execPath, [...cli, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--port N');
    expect(run.stdout).toContain('--in-memory');
  });
});
