/** The real process: `npm start`'s entry point, its banner, --help, bad configuration, SIGTERM. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const entry = ['--import', 'tsx', 'src/main.ts'];

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
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

  it('starts with demo data, prints where to go and the persona keys, and stops on SIGTERM within a second', async () => {
    const child = spawn(process.execPath, entry, {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const banner = await waitForOutput(child, /REST base URL: (http:\/\/\S+)[\s\S]*mk_demo/);
      const graphiql = /GraphiQL:\s+(http:\/\/\S+)\/graphql/.exec(banner)![1]!;
      expect((await fetch(`${graphiql}/readyz`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const stopAt = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - stopAt).toBeLessThan(1000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
