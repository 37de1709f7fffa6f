/**
 * `npm run seed -- --file F | --demo | --print-demo | --help`
 *
 * Loads a dataset into MONGODB_URI / MONGODB_DB. The file is validated before any connection is
 * made: problems are printed one per line, the exit code is 2 and nothing is written.
 * Exit codes: 0 done, 1 unexpected failure (e.g. database unreachable), 2 bad usage or bad data.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { demoDataset } from '../../seeds/demo.js';
import { loadDataset } from '../../seeds/load.js';
import { validateDataset } from '../../seeds/validate.js';
import { loadConfig } from '../config.js';
import { connectDatabase } from '../db/connection.js';
import { configOrExit } from '../lifecycle.js';
import { redactCredentials } from '../redact.js';

const usage = `Usage: npm run seed -- <option>

  --file FILE    load a dataset file (JSON, format in seeds/README.md)
  --demo         load the demo dataset
  --print-demo   write the demo dataset as JSON to stdout (no database needed)
  --help         show this help

Environment:
  MONGODB_URI    MongoDB connection string (required to load)
  MONGODB_DB     database name [default: meetings]

Loading is idempotent: running it again with the same data changes nothing.
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function readDataset(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    fail(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseOptions>;
  try {
    args = parseOptions();
  } catch (error) {
    fail(`${(error as Error).message}\n\n${usage}`);
  }
  const actions = [args.file !== undefined, args.demo, args['print-demo']].filter(Boolean).length;
  if (args.help) {
    process.stdout.write(usage);
    return;
  }
  if (actions !== 1) fail(`Choose exactly one of --file, --demo, --print-demo.\n\n${usage}`);

  if (args['print-demo']) {
    process.stdout.write(`${JSON.stringify(demoDataset(), null, 2)}\n`);
    return;
  }

  const source = args.file ?? 'the demo dataset';
  const validation = validateDataset(args.file !== undefined ? await readDataset(args.file) : demoDataset());
  if (!validation.ok) {
    fail(`${source} is invalid; nothing was written.\n${validation.problems.join('\n')}`);
  }

  const config = configOrExit(() => loadConfig(['database']));
  if (!config.MONGODB_URI)
    fail(
      'MONGODB_URI is not set: say which MongoDB to load into, e.g. MONGODB_URI=mongodb://127.0.0.1:27017',
    );
  const dbName = config.MONGODB_DB;

  // The driver's own timeouts, not MONGODB_TIMEOUT_MS: a dataset is written in large batches.
  const database = await connectDatabase(config.MONGODB_URI, dbName);
  try {
    const counts = await loadDataset(database.collections, validation.dataset);
    const summary = Object.entries(counts).map(([kind, n]) => `${kind} ${n}`);
    process.stdout.write(`Loaded ${source} into database "${dbName}": ${summary.join(', ')}\n`);
  } finally {
    await database.close();
  }
}

function parseOptions() {
  return parseArgs({
    options: {
      file: { type: 'string' },
      demo: { type: 'boolean', default: false },
      'print-demo': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

// `--print-demo | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main().catch((error: unknown) =>
  fail(redactCredentials(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`), 1),
);
