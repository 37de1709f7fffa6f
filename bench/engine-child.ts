/** The engine's process (bench/engine.ts) as `npm run engine` runs it: its young generation, room to grow. */
import { Child } from './ipc.js';

// `--expose-gc` only lets the bench ask for a collection before it reads what memory is kept.
const engineNodeArgs = ['--max-semi-space-size=32', '--expose-gc'];

/**
 * The C library's setting the npm scripts (`npm start`, `npm run engine`) and the Docker image start
 * node with: large buffers mapped apart, so they go back to the OS once freed
 * (docs/operators/production.md, Memory).
 */
export const NPM_START_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' } as const;

export function startEngine(name: string, env: Record<string, string>, extraNodeArgs: string[] = []): Child {
  return Child.start(
    name,
    'bench/engine.ts',
    { ...NPM_START_ENV, ...env },
    {
      maxOldSpaceMb: 12_288,
      nodeArgs: [...engineNodeArgs, ...extraNodeArgs],
    },
  );
}
