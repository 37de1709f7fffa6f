/**
 * The execution every document goes through, whoever sends it (src/graphql/execution.ts): the
 * delivery worker's in-process executor keeps the doors' limits and masks what is ours, logging it.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/graphql/execution.js';
import { createLogger } from '../../src/logger.js';

/** A logger whose lines are kept. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

describe('the in-process executor (webhook bodies)', () => {
  it('refuses at prepare, naming it, a document the doors would refuse: too deep, or not valid', () => {
    const executor = createExecutor(createLogger('silent'));
    const deep = `{ ${'viewer { organisation { '.repeat(6)}name${' } }'.repeat(6)} }`;
    expect(() => executor.prepare(deep, 'the deep document')).toThrow(
      /^the deep document does not validate: .*depth limit/,
    );
    expect(() => executor.prepare('{ meetings { nope } }', 'the bad document')).toThrow(
      /^the bad document does not validate: Cannot query field "nope"/,
    );
  });

  it('masks an error of ours in the result, and logs it with its cause', async () => {
    const { logger, lines } = capturedLogger();
    const executor = createExecutor(logger);
    const prepared = executor.prepare('{ node(id: "TWVldGluZzox") { id } }', 'the node document');
    // A signed-in viewer's context without its loaders: the resolver fails as a bug of ours would.
    const result = await executor.run(prepared, { viewer: { via: 'api_key' } }, {});
    expect(result.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['Unexpected error.', 'INTERNAL_SERVER_ERROR'],
    ]);
    expect(lines.join('')).toContain('unexpected GraphQL error');
  });
});
