/** Child processes in tests: their output, their exit, and the processes they started. */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Everything the child writes, stdout and stderr apart, as it arrives. */
export function outputOf(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (c: Buffer) => {
    output.stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output.stderr += c.toString();
  });
  return output;
}

export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; saw:\n${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Every process below `pid` (children, their children...). */
export function descendants(pid: number): number[] {
  const run = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  const children = run.stdout.split('\n').filter(Boolean).map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Whether `pid` is still running (a zombie waiting to be reaped has stopped running). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A port nobody listens on now, for a child that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
