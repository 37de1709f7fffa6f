/**
 * Logs are JSON lines for collectors, and readable lines when stdout is a terminal. The terminal
 * comes from `script` (util-linux), which runs a command on a pseudo-terminal.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const program = `
  const { createLogger } = await import('./src/logger.ts');
  createLogger('info').info({ route: '/graphql' }, 'request');
`;
const command = `${process.execPath} --import tsx --input-type=module -e "${program.replace(/"/g, '\\"')}"`;

describe('log format', () => {
  it('writes one JSON object a line when stdout is not a terminal', () => {
    const out = execFileSync('sh', ['-c', command], { encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toMatchObject({ level: 'info', msg: 'request', route: '/graphql' });
  });

  it('writes readable lines on a terminal', () => {
    const out = execFileSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colours are what is removed
    const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/INFO.*request/);
    expect(plain).toContain('route: "/graphql"');
    expect(plain).not.toContain('{"level"');
  });
});
