// Command dispatch table: the first field of the command document names the command.
import { CommandError, ErrorCode, toCommandError } from '../errors.js';
import type { Document } from '../values.js';
import { adminCommands } from './admin.js';
import { bulkWriteCommands } from './bulk-write.js';
import { collModCommands } from './coll-mod.js';
import { type CommandContext, type CommandHandler, maxTimeMS, optionalBoolean } from './context.js';
import { countCommand } from './counters.js';
import { checkCommandFields } from './fields.js';
import { handshakeCommands } from './handshake.js';
import { finishProfile, profileCommands, startProfile } from './profile.js';
import { readCommands } from './read.js';
import { refuseUnsupported } from './unsupported.js';
import { writeCommands } from './write.js';

export type { CommandContext, CommandHandler, ConnectionInfo } from './context.js';
export { connectionClosed, connectionOpened } from './counters.js';

const COMMANDS = new Map<string, CommandHandler>(
  Object.entries({
    ...handshakeCommands,
    ...readCommands,
    ...writeCommands,
    ...bulkWriteCommands,
    ...adminCommands,
    ...collModCommands,
    ...profileCommands,
  }),
);

COMMANDS.set('listCommands', () => {
  const commands: Document = {};
  for (const name of [...COMMANDS.keys()].sort()) commands[name] = {};
  return { commands };
});

export function supportedCommands(): string[] {
  return [...COMMANDS.keys()].sort();
}

/** Runs one command and always returns a reply document (`ok: 1` or an error reply with `ok: 0`). */
export function executeCommand(body: Document, ctx: CommandContext): Document {
  const name = Object.keys(body)[0];
  const started = Date.now();
  const profile = name === undefined ? undefined : startProfile(ctx, name, body);
  const reply = runCommand(name, body, profile ? { ...ctx, profile } : ctx);
  if (profile) finishProfile(ctx, profile, reply, started);
  return reply;
}

function runCommand(name: string | undefined, body: Document, ctx: CommandContext): Document {
  try {
    if (name === undefined) throw new CommandError(ErrorCode.FailedToParse, 'Empty command');
    const handler = COMMANDS.get(name);
    if (!handler) {
      throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
    }
    checkCommandFields(name, body);
    refuseUnsupported(name, body);
    // A standalone has no transactions nor retryable writes; drivers only send these to a
    // replica set member (hello with setName) or mongos, so this reaches only foreign clients.
    if (
      body.txnNumber !== undefined ||
      body.autocommit !== undefined ||
      body.startTransaction !== undefined
    ) {
      throw new CommandError(
        ErrorCode.IllegalOperation,
        'Transaction numbers are only allowed on a replica set member or mongos',
      );
    }
    countCommand(ctx.engine, name, body);
    ctx.engine.sessions.touch(body.lsid);
    const limit = maxTimeMS(body);
    const bypassDocumentValidation = optionalBoolean(body, 'bypassDocumentValidation');
    const reply = handler(body, {
      ...ctx,
      ...(limit !== undefined && { deadline: Date.now() + limit }),
      ...(bypassDocumentValidation && { bypassDocumentValidation }),
    });
    if (!('ok' in reply)) reply.ok = 1;
    return reply;
  } catch (err) {
    // $text reaches the matcher only where a query cannot have one (a partial index filter...).
    if (err instanceof Error && err.message.includes('unknown top level operator: $text')) {
      return new CommandError(ErrorCode.BadValue, '$text is not allowed in this context').toReply();
    }
    return toCommandError(err).toReply();
  }
}
