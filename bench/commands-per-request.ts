/**
 * Exact MongoDB commands per request of a server: a few sequential requests between two readings
 * of its command counters, after one unmeasured call (a client calling repeatedly finds its key
 * and the page's names cached). The ceiling has no database: null.
 */
import type { Child, Stats } from './ipc.js';
import { fetchOnce, type LoadRequest } from './load.js';
import type { Target } from './report.js';
import type { Servers } from './servers.js';

export interface CommandsPerRequest {
  perRequest: number;
  byName: Record<string, number>;
  /** getMores the 16 MiB reply limit forced, per request. */
  forcedGetMores: number;
}

export async function commandsPerRequest(
  servers: Servers,
  target: Target,
  request: LoadRequest,
  times = 3,
): Promise<CommandsPerRequest | null> {
  if (target === 'ceiling') return null;
  // The service does not count its commands: its twin does.
  return commandsOf(target === 'service' ? servers.counting : servers.server(target), request, times, target);
}

/** The same, of any server process that counts its commands (bench/service.ts). */
export async function commandsOf(
  { url, child }: { url: string; child: Child },
  request: LoadRequest,
  times = 3,
  name = child.name,
): Promise<CommandsPerRequest> {
  // Counted warm, as a client calling repeatedly sees it: the first call of a while also
  // recognises the key and reads the names the page shows, which the next calls reuse.
  await fetchOnce(url, request);
  const before = await child.stats();
  for (let i = 0; i < times; i++) {
    const answer = await fetchOnce(url, request);
    if (answer.status !== 200) throw new Error(`${name} answered ${answer.status} to ${request.path}`);
  }
  return commandsBetween(before, await child.stats(), times);
}

/** The commands between two readings of a server's counters, per request of `times`. */
export function commandsBetween(before: Stats, after: Stats, times: number): CommandsPerRequest {
  const byName: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.commandsByName))
    if (n !== (before.commandsByName[name] ?? 0))
      byName[name] = (n - (before.commandsByName[name] ?? 0)) / times;
  return {
    perRequest: (after.commands - before.commands) / times,
    byName,
    forcedGetMores: (after.forcedGetMores - before.forcedGetMores) / times,
  };
}
