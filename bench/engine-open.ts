/**
 * The engine scenario's open case (issue 33): how long a durable data directory takes to serve
 * again. A durable engine in a temporary directory is given `meetings` meetings with short
 * transcripts and every index the app keeps, stopped, and started again on the same directory; the
 * figure is the engine's own open (`startEmbeddedMongo` until it listens, as its process reports)
 * plus the first answered query (the newest ten meetings), with the engine's RSS after that query.
 * The process's own start (Node and module loading) is shown beside it, not counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { connectDatabase } from '../src/db/connection.js';
import { appendBenchMeetings, benchReferences, type DatasetOptions, loadBenchDataset } from './dataset.js';
import { startEngine } from './engine-child.js';
import type { EngineOpenReport, TargetCheck } from './report.js';
import { mb } from './units.js';

/** Issue 33: the first answered query within this long of the engine starting to open. */
export const OPEN_TARGET_MS = 1_000;

export async function runOpenCase(
  meetings: number,
  seed: number,
  log: (line: string) => void,
): Promise<EngineOpenReport> {
  const path = mkdtempSync(join(tmpdir(), 'bench-engine-open-'));
  try {
    const dataset: DatasetOptions = { meetings, minEntries: 1, maxEntries: 4, seed };
    const writer = startEngine('engine (durable)', { EMBEDDED_MONGO_PATH: path });
    try {
      const { uri } = (await writer.ready) as { uri: string };
      const seeding = await connectDatabase(uri, 'engine');
      const first = Math.min(1_000, meetings);
      await loadBenchDataset(seeding.collections, dataset, () => {}, first);
      await appendBenchMeetings(
        seeding.collections,
        dataset,
        await benchReferences(seeding.collections),
        first,
        meetings,
      );
      await seeding.close();
    } finally {
      await writer.stop();
    }

    const spawned = performance.now();
    const reader = startEngine('engine (reopened)', { EMBEDDED_MONGO_PATH: path });
    try {
      const { uri, openMs } = (await reader.ready) as { uri: string; openMs: number };
      const processMs = performance.now() - spawned - openMs;
      const client = await new MongoClient(uri, { maxPoolSize: 1 }).connect();
      try {
        const asked = performance.now();
        const newest = await client
          .db('engine')
          .collection('meetings')
          .find({})
          .sort({ recordingStartTime: -1, recordingId: -1 })
          .limit(10)
          .toArray();
        const firstQueryMs = performance.now() - asked;
        const rss = reader.rss();
        const report: EngineOpenReport = {
          meetings,
          openMs,
          firstQueryMs,
          processMs,
          rssMb: rss === null ? null : mb(rss),
          found: newest.length,
        };
        log(
          `  reopening a durable directory of ${meetings.toLocaleString('en')} meetings: open ${openMs.toFixed(0)} ms + first query ${firstQueryMs.toFixed(0)} ms ` +
            `(process start before it ${processMs.toFixed(0)} ms, not counted); engine RSS then ${report.rssMb?.toFixed(0) ?? '?'} MB`,
        );
        return report;
      } finally {
        await client.close();
      }
    } finally {
      await reader.stop();
    }
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}

export function openTarget(r: EngineOpenReport): TargetCheck {
  const total = r.openMs + r.firstQueryMs;
  return {
    name: `engine: a durable directory of ${r.meetings.toLocaleString('en')} meetings answers its first query within ${OPEN_TARGET_MS} ms of opening`,
    status: r.found === 10 && total < OPEN_TARGET_MS ? 'PASS' : 'FAIL',
    detail: `${total.toFixed(0)} ms (open ${r.openMs.toFixed(0)} ms, first query ${r.firstQueryMs.toFixed(0)} ms; RSS ${r.rssMb?.toFixed(0) ?? '?'} MB)`,
  };
}
