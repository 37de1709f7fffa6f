/**
 * A writer process for test/service/mirror.test.ts: `node --import tsx test/support/mirror-writer.ts
 * SEED OPERATIONS IDS...` stores and deletes the given recordings at random, through the ingestion
 * path (ingestRecording, deleteRecording) on MONGODB_URI, as fast as it can. Two of them run at once
 * over the same recordings. It prints, as its last line, JSON of what each operation changed:
 * `[{ "recordingId": 1, "changes": ["content"] }, ...]` (a deletion that deleted: ["deleted"]).
 */
import { connectDatabase } from '../../src/db/connection.js';
import { deleteRecording } from '../../src/domain/deletion.js';
import { ingestRecording } from '../../src/domain/ingestion.js';
import { testRecording } from './recording.js';

const [seedArg, operationsArg, ...idArgs] = process.argv.slice(2);
const ids = idArgs.map(Number);
let seed = Number(seedArg);
/** mulberry32: the same operations for the same seed. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

/** Acme's recorders: each recording keeps one (a recording stays in its organisation). */
const recorders = [
  'sam.rivera@acme.test',
  'tom.baker@acme.test',
  'tina.nguyen@acme.test',
  'mike.chen@acme.test',
];
const sharings = [
  { users: [], teams: [], all_teams: false },
  { users: [], teams: ['Sales'], all_teams: false },
  { users: [], teams: ['Support'], all_teams: false },
  { users: [], teams: ['Sales', 'Support'], all_teams: false },
  { users: [], teams: [], all_teams: true },
  { users: ['tina.nguyen@acme.test'], teams: [], all_teams: false },
  { users: ['gina.hart@globex.test', 'sam.rivera@acme.test'], teams: [], all_teams: false },
];

const database = await connectDatabase(process.env.MONGODB_URI!, process.env.MONGODB_DB ?? 'meetings');
const done: { recordingId: number; changes: string[] }[] = [];
try {
  for (let i = 0; i < Number(operationsArg); i++) {
    const recordingId = pick(ids);
    if (random() < 0.2) {
      const deleted = await deleteRecording(database.collections, database.media, recordingId, new Date());
      done.push({ recordingId, changes: deleted ? ['deleted'] : [] });
      continue;
    }
    const recorder = recorders[recordingId % recorders.length]!;
    const recording = {
      ...testRecording(
        recordingId,
        recorder,
        Date.parse('2026-11-02T10:00:00Z') + (recordingId % 100) * 3600_000,
        {
          title: `Recording ${recordingId}, version ${pick(['a', 'b', 'c'])}`,
          sharing: pick(sharings),
        },
      ),
      default_summary: { template_name: 'General', markdown_formatted: `## ${pick(['One', 'Two'])}` },
    };
    const stored = await ingestRecording(database.collections, recording);
    done.push({ recordingId, changes: stored.changes });
  }
} finally {
  await database.close();
}
process.stdout.write(`${JSON.stringify(done)}\n`);
