// Per-engine counters for serverStatus: connections and opcounters, as mongod counts them.
import { readFileSync } from 'node:fs';
import type { Engine } from '../storage.js';
import { type Document, isPlainObject } from '../values.js';

interface Counters {
  current: number;
  totalCreated: number;
  opcounters: {
    insert: number;
    query: number;
    update: number;
    delete: number;
    getmore: number;
    command: number;
  };
}

const byEngine = new WeakMap<Engine, Counters>();

function countersOf(engine: Engine): Counters {
  let counters = byEngine.get(engine);
  if (!counters) {
    counters = {
      current: 0,
      totalCreated: 0,
      opcounters: { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 },
    };
    byEngine.set(engine, counters);
  }
  return counters;
}

export function connectionOpened(engine: Engine): void {
  const counters = countersOf(engine);
  counters.current++;
  counters.totalCreated++;
}

export function connectionClosed(engine: Engine): void {
  countersOf(engine).current--;
}

const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** The kind of each of bulkWrite's ops (told by its first field); bulkWrite itself is not counted. */
function* bulkWriteOpKinds(list: unknown): Generator<'insert' | 'update' | 'delete'> {
  if (!Array.isArray(list)) return;
  for (const op of list) {
    const kind = isPlainObject(op) ? Object.keys(op)[0] : undefined;
    if (kind === 'insert' || kind === 'update' || kind === 'delete') yield kind;
  }
}

/**
 * mongod counts inserted documents, update and delete statements (bulkWrite's ops among them), and
 * every other command once.
 */
export function countCommand(engine: Engine, name: string, cmd: Document): void {
  const ops = countersOf(engine).opcounters;
  if (name === 'insert') ops.insert += length(cmd.documents);
  else if (name === 'update') ops.update += length(cmd.updates);
  else if (name === 'delete') ops.delete += length(cmd.deletes);
  else if (name === 'bulkWrite') for (const kind of bulkWriteOpKinds(cmd.ops)) ops[kind]++;
  else if (name === 'find') ops.query++;
  else if (name === 'getMore') ops.getmore++;
  else ops.command++;
}

/** mongod's connection limit when ulimit does not lower it (net.maxIncomingConnections). */
const MAX_INCOMING_CONNECTIONS = 1_000_000;
const MB = 1024 * 1024;

/** Virtual size from /proc on Linux; the resident size elsewhere. */
function virtualBytes(resident: number): number {
  try {
    const pages = Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[0]);
    return Number.isFinite(pages) ? pages * 4096 : resident;
  } catch {
    return resident;
  }
}

export function serverStatusSections(engine: Engine): Document {
  const counters = countersOf(engine);
  const resident = process.memoryUsage().rss;
  return {
    connections: {
      current: counters.current,
      available: MAX_INCOMING_CONNECTIONS - counters.current,
      totalCreated: counters.totalCreated,
    },
    opcounters: { ...counters.opcounters },
    mem: {
      bits: 64,
      resident: Math.round(resident / MB),
      virtual: Math.round(virtualBytes(resident) / MB),
      supported: true,
    },
  };
}
