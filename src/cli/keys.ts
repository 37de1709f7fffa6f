/**
 * `npm run keys`: an operator's API keys, straight in MONGODB_URI / MONGODB_DB, for the first admin
 * key of a new installation (after that, keys are made through GraphQL) and for offboarding. The
 * same rules as the API (src/domain/api-keys.ts): the key is printed once, only its hash is stored.
 * Exit codes: 0 done, 1 unexpected failure (the database), 2 bad usage, an unknown user or key.
 */
import { parseArgs } from 'node:util';
import { type Filter, ObjectId } from 'mongodb';
import { loadConfig } from '../config.js';
import type { Collections } from '../db/collections.js';
import { connectDatabase } from '../db/connection.js';
import type { CredentialDoc } from '../db/documents.js';
import { issueApiKey, revoke } from '../domain/api-keys.js';
import { DomainError } from '../domain/errors.js';
import { configOrExit } from '../lifecycle.js';
import { redactCredentials } from '../redact.js';

const usage = `Usage: npm run keys -- <command> [options]

  create --user EMAIL --name NAME [--expires DATE]
                 makes an API key for the user and prints it (once: only its hash is kept)
  list [--user EMAIL]
                 API keys that are not revoked (of one user, or of everyone), by prefix
  revoke --id ID | --prefix PREFIX
                 revokes one API key; every process refuses it within CREDENTIAL_CACHE_MS
  --help         show this help

Environment:
  MONGODB_URI    MongoDB connection string (required)
  MONGODB_DB     database name [default: meetings]
`;

class UsageError extends Error {}

function options(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        user: { type: 'string' },
        name: { type: 'string' },
        expires: { type: 'string' },
        id: { type: 'string' },
        prefix: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function userByEmail(collections: Collections, email: string) {
  const user = await collections.users.findOne({ email: email.toLowerCase() });
  if (!user) throw new UsageError(`No user ${email}.`);
  return user;
}

function describe(key: CredentialDoc, email: string): string {
  const date = (d: Date | null | undefined) => (d ? d.toISOString() : '-');
  return [
    key.prefix.padEnd(14),
    email.padEnd(32),
    key.label.padEnd(24),
    `created ${date(key.createdAt)}`,
    `last used ${date(key.lastUsedAt)}`,
    `expires ${date(key.expiresAt)}`,
    `id ${key._id.toHexString()}`,
  ].join('  ');
}

async function run(collections: Collections, command: string, values: ReturnType<typeof options>['values']) {
  if (command === 'create') {
    if (!values.user || !values.name) throw new UsageError('create needs --user EMAIL and --name NAME.');
    const expiresAt = values.expires ? new Date(values.expires) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime()))
      throw new UsageError(`--expires ${values.expires} is not a date (e.g. 2027-01-31).`);
    const user = await userByEmail(collections, values.user);
    const { key, apiKey } = await issueApiKey(collections, user, { name: values.name, expiresAt });
    process.stdout.write(`${key}\n`);
    process.stderr.write(
      `API key ${apiKey.prefix}… made for ${user.email} (id ${apiKey._id.toHexString()}). It is shown this once: store it now.\n`,
    );
    return;
  }
  if (command === 'list') {
    const filter: Filter<CredentialDoc> = { kind: 'api_key', revokedAt: null };
    if (values.user) filter.userId = (await userByEmail(collections, values.user))._id;
    const keys = await collections.credentials.find(filter).sort({ createdAt: -1, _id: -1 }).toArray();
    const users = await collections.users.find({ _id: { $in: keys.map((k) => k.userId) } }).toArray();
    const emailOf = new Map(users.map((u) => [u._id.toHexString(), u.email]));
    for (const key of keys)
      process.stdout.write(`${describe(key, emailOf.get(key.userId.toHexString()) ?? '?')}\n`);
    if (keys.length === 0) process.stderr.write('No API keys.\n');
    return;
  }
  if (command === 'revoke') {
    if (!values.id === !values.prefix) throw new UsageError('revoke needs --id ID or --prefix PREFIX.');
    if (values.id && !ObjectId.isValid(values.id)) throw new UsageError(`--id ${values.id} is not a key id.`);
    const matching = await collections.credentials
      .find(
        values.id
          ? { kind: 'api_key', _id: new ObjectId(values.id) }
          : { kind: 'api_key', prefix: values.prefix, revokedAt: null },
      )
      .limit(2)
      .toArray();
    if (matching.length === 0) throw new UsageError(`No API key ${values.id ?? values.prefix}.`);
    if (matching.length > 1) throw new UsageError(`More than one key has prefix ${values.prefix}: use --id.`);
    const revoked = await revoke(collections, matching[0]!, new Date());
    process.stderr.write(`Revoked ${revoked.prefix}… (id ${revoked._id.toHexString()}).\n`);
    return;
  }
  throw new UsageError(command ? `Unknown command ${command}.` : 'Say what to do.');
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof options>;
  try {
    parsed = options(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(usage);
    return;
  }
  const config = configOrExit(() => loadConfig(['database']));
  if (!config.MONGODB_URI) {
    process.stderr.write('MONGODB_URI is not set: say which MongoDB holds the keys.\n');
    process.exit(2);
  }
  const database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB, {
    timeoutMs: config.MONGODB_TIMEOUT_MS,
  });
  try {
    await run(database.collections, parsed.positionals[0] ?? '', parsed.values);
  } catch (error) {
    if (error instanceof UsageError || error instanceof DomainError) {
      process.stderr.write(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`keys: ${redactCredentials(String((error as Error).message ?? error))}\n`);
  process.exit(1);
});
