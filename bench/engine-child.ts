/** The engine's process (bench/engine.ts) as `npm run engine` runs it: its young generation, room to grow. */
import { Child } from './ipc.js';

const engineNodeArgs = ['--max-semi-space-size=32'];

export function startEngine(name: string, env: Record<string, string>, extraNodeArgs: string[] = []): Child {
  return Child.start(name, 'bench/engine.ts', env, {
    maxOldSpaceMb: 12_288,
    nodeArgs: [...engineNodeArgs, ...extraNodeArgs],
  });
}
