/**
 * The orchestrator and its child processes (engine, service, baselines, ceiling) talk over the
 * Node IPC channel: a child announces itself with `ready`, answers `stats` (its MongoDB command
 * count and memory) and stops on `stop`. Nothing of this goes over the HTTP ports being measured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MongoClient } from 'mongodb';
import type { Database } from '../src/db/connection.js';

export interface Stats {
  /** MongoDB commands the process's driver has started so far (command monitoring). */
  commands: number;
  /** The same, by command name (find, getMore, update...). */
  commandsByName: Record<string, number>;
  /** Of the getMores, those the 16 MiB reply limit forced (see forcedGetMoreCounter). */
  forcedGetMores: number;
  /** Commands of every client in the process (the delivery worker has its own connection). */
  allCommands: number;
  rss: number;
  heapUsed: number;
  /** CPU time used so far (user + system), ms. */
  cpuMs: number;
}

export type ChildMessage =
  | { type: 'ready'; info: Record<string, unknown> }
  | { type: 'stats'; id: number; stats: Stats }
  | { type: 'reply'; id: number; value: unknown }
  | { type: 'error'; message: string };

export type ParentMessage =
  | { type: 'stats'; id: number }
  | { type: 'call'; id: number; name: string; args: unknown }
  | { type: 'stop' };

/** A child process running one of the bench/*.ts entries, with request/answer over IPC. */
export class Child {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: ChildMessage) => void>();
  readonly ready: Promise<Record<string, unknown>>;
  readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    this.ready = new Promise((resolve, reject) => {
      process.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') resolve(message.info);
        else if (message.type === 'error') reject(new Error(`${name}: ${message.message}`));
        else this.waiting.get(message.id)?.(message);
      });
      process.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready`)));
    });
    this.exited = new Promise((resolve) => process.once('exit', (code) => resolve(code)));
  }

  /** Starts `entry` (a file of bench/ or scripts/, relative to the repository) under tsx. */
  static start(
    name: string,
    entry: string,
    env: Record<string, string>,
    options: {
      maxOldSpaceMb?: number;
      quiet?: boolean;
      nodeArgs?: string[];
      /** A file descriptor to send the child's stdout (its log) to, instead of this process's stdout. */
      stdout?: number;
    } = {},
  ): Child {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const args = [...(options.nodeArgs ?? []), '--import', 'tsx'];
    if (options.maxOldSpaceMb) args.unshift(`--max-old-space-size=${options.maxOldSpaceMb}`);
    const child = spawn(process.execPath, [...args, entry], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', options.stdout ?? (options.quiet ? 'ignore' : 'inherit'), 'inherit', 'ipc'],
    });
    return new Child(name, child);
  }

  get pid(): number {
    return this.process.pid!;
  }

  private ask(message: ParentMessage & { id: number }): Promise<ChildMessage> {
    return new Promise((resolve) => {
      this.waiting.set(message.id, (answer) => {
        this.waiting.delete(message.id);
        resolve(answer);
      });
      this.process.send(message);
    });
  }

  async stats(): Promise<Stats> {
    const answer = await this.ask({ type: 'stats', id: this.nextId++ });
    if (answer.type !== 'stats') throw new Error(`${this.name}: unexpected answer ${answer.type}`);
    return answer.stats;
  }

  async call<T>(name: string, args: unknown): Promise<T> {
    const answer = await this.ask({ type: 'call', id: this.nextId++, name, args });
    if (answer.type !== 'reply') throw new Error(`${this.name}: unexpected answer ${answer.type}`);
    return answer.value as T;
  }

  /** Asks it to stop, and kills it if it has not within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    if (this.process.connected) this.process.send({ type: 'stop' } satisfies ParentMessage);
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Resident set size now, from /proc (Linux); the process is not disturbed. */
  rss(): number | null {
    return rssOf(this.pid);
  }

  /** Its resident memory split as /proc tells it: private (anonymous) and pages of mapped files. */
  residentMemory(): ResidentMemory | null {
    return residentMemoryOf(this.pid);
  }
}

/**
 * Resident memory in bytes. `private` is the process's own memory (its heap, buffers and stacks);
 * the rest of `rss` is mostly the pages of files it maps and has read (the engine's LMDB data file):
 * the kernel's page cache, shared and dropped under memory pressure, which a database reading
 * through read() instead of a map would not show in its RSS at all.
 */
export interface ResidentMemory {
  rss: number;
  private: number;
}

export function residentMemoryOf(pid: number): ResidentMemory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const memory = { rss: kb('VmRSS'), private: kb('RssAnon') };
    return Object.values(memory).some(Number.isNaN) ? null : memory;
  } catch {
    return null;
  }
}

export function rssOf(pid: number): number | null {
  return residentMemoryOf(pid)?.rss ?? null;
}

/** Samples the RSS of `pids` every `everyMs` until stopped; returns the peak of each. */
export function sampleRss(pids: number[], everyMs = 100): () => number[] {
  const peaks = pids.map((pid) => rssOf(pid) ?? 0);
  const timer = setInterval(() => {
    pids.forEach((pid, i) => {
      peaks[i] = Math.max(peaks[i]!, rssOf(pid) ?? 0);
    });
  }, everyMs);
  return () => {
    clearInterval(timer);
    pids.forEach((pid, i) => {
      peaks[i] = Math.max(peaks[i]!, rssOf(pid) ?? 0);
    });
    return peaks;
  };
}

/** Counts the commands of a database's client, in total and by name. */
export function commandCounter(database: Pick<Database, 'client' | 'onCommand'>) {
  let total = 0;
  const byName: Record<string, number> = {};
  database.onCommand((event) => {
    total++;
    byName[event.commandName] = (byName[event.commandName] ?? 0) + 1;
  });
  return {
    commands: () => total,
    commandsByName: () => byName,
    forcedGetMores: forcedGetMoreCounter(database.client),
  };
}

/**
 * Counts the getMores the 16 MiB reply limit forced: those whose cursor's previous batch came back
 * with fewer documents than were asked (first batches hold 101 unless told otherwise; a getMore
 * without batchSize asks for all) while the cursor stayed open. Any other getMore is a round trip
 * the app chose.
 */
function forcedGetMoreCounter(client: MongoClient): () => number {
  let forced = 0;
  const asked = new Map<number, number>(); // by request id, until its reply
  const cut = new Set<string>(); // cursor ids whose last batch the size limit cut
  client.on('commandStarted', (event) => {
    const c = event.command;
    if (event.commandName === 'getMore') {
      const id = String(c.getMore);
      if (cut.delete(id)) forced++;
      asked.set(event.requestId, c.batchSize ?? Number.POSITIVE_INFINITY);
    } else if (event.commandName === 'find' || event.commandName === 'aggregate') {
      const batchSize = (event.commandName === 'find' ? c.batchSize : c.cursor?.batchSize) ?? 101;
      asked.set(event.requestId, Math.min(batchSize, c.limit ?? Number.POSITIVE_INFINITY));
    }
  });
  const replied = (event: { requestId: number; reply?: unknown }) => {
    const wanted = asked.get(event.requestId);
    if (wanted === undefined) return;
    asked.delete(event.requestId);
    const cursor = (event.reply as { cursor?: CursorReply } | undefined)?.cursor;
    const batch = cursor?.firstBatch ?? cursor?.nextBatch;
    if (cursor && batch && String(cursor.id) !== '0' && batch.length < wanted) cut.add(String(cursor.id));
  };
  client.on('commandSucceeded', replied);
  client.on('commandFailed', replied);
  return () => forced;
}

interface CursorReply {
  id: unknown;
  firstBatch?: unknown[];
  nextBatch?: unknown[];
}

/** The child side: announce readiness, answer stats and calls, stop on request or when the parent goes. */
export function serveParent(options: {
  info: Record<string, unknown>;
  commands?: () => number;
  commandsByName?: () => Record<string, number>;
  forcedGetMores?: () => number;
  allCommands?: () => number;
  calls?: Record<string, (args: any) => unknown>;
  stop: () => Promise<void>;
}): void {
  const send = (message: ChildMessage) => process.send?.(message);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await options.stop();
    } finally {
      process.exit(0);
    }
  };
  process.on('message', async (message: ParentMessage) => {
    if (message.type === 'stop') return stop();
    if (message.type === 'stats') {
      const memory = process.memoryUsage();
      const cpu = process.cpuUsage();
      send({
        type: 'stats',
        id: message.id,
        stats: {
          commands: options.commands?.() ?? 0,
          commandsByName: { ...options.commandsByName?.() },
          forcedGetMores: options.forcedGetMores?.() ?? 0,
          allCommands: options.allCommands?.() ?? options.commands?.() ?? 0,
          rss: memory.rss,
          heapUsed: memory.heapUsed,
          cpuMs: (cpu.user + cpu.system) / 1000,
        },
      });
      return;
    }
    const call = options.calls?.[message.name];
    const value = call ? await call(message.args) : undefined;
    send({ type: 'reply', id: message.id, value });
  });
  // The orchestrator died: do not linger.
  process.on('disconnect', () => void stop());
  send({ type: 'ready', info: options.info });
}

/** Reports a start-up failure to the parent and exits. */
export function failToParent(error: unknown): never {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.send?.({ type: 'error', message } satisfies ChildMessage);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * Waits until the engine has been idle for 300 ms (under 3 ms of CPU: no command arrived, no
 * commit being written), at most `maxMs`. Read from the engine, as the servers need not count their
 * commands.
 */
export async function engineIdle(stats: () => Promise<{ cpuMs: number }>, maxMs = 10_000): Promise<void> {
  let last = (await stats()).cpuMs;
  for (let waited = 0; waited < maxMs; waited += 300) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = (await stats()).cpuMs;
    if (now - last < 3) return;
    last = now;
  }
}
