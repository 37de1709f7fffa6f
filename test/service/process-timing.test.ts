/**
 * The real process's timed behaviour: `npm start`'s entry point has printed its banner (where to
 * go, the persona keys) and its listening line by the time /readyz first answers, and stops on
 * SIGTERM within a second. Timed, so in the serial project (vitest.config.ts); the rest of the
 * process's behaviour: process.test.ts.
 */
import { spawn } from 'node:child_process';
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { exitOf, freePort, outputOf, waitForOutput } from '../support/processes.js';

const entry = ['--import', 'tsx', 'src/cli/service.ts'];

describe('the service process', () => {
  it('starts with demo data, prints where to go and the persona keys, and stops on SIGTERM within a second', async () => {
    const child = spawn(process.execPath, entry, {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const banner = await waitForOutput(child, /REST base URL: (http:\/\/\S+)[\s\S]*mk_demo/);
      const graphiql = /GraphiQL:\s+(http:\/\/\S+)\/graphql/.exec(banner)![1]!;
      expect((await fetch(`${graphiql}/readyz`)).status).toBe(200);
      const stopAt = Date.now();
      child.kill('SIGTERM');
      expect((await exitOf(child)).code).toBe(0);
      expect(Date.now() - stopAt).toBeLessThan(1000);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('has printed its banner and its listening line by the time /readyz first answers', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, entry, {
      env: { ...process.env, PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    try {
      while (
        !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      )
        await setTimeout(50);
      // What the child wrote before answering is in the pipes; let this process read them.
      await setTimeout(200);
      expect(output.stderr).toMatch(/REST base URL: http:\/\/\S+[\s\S]*mk_demo/);
      expect(output.stdout).toMatch(/"msg":"listening"/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
