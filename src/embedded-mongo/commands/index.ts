// Command dispatch table: the first field of the command document names the command.
import { CommandError, ErrorCode, toCommandError } from '../errors.js';
import type { Document } from '../values.js';
import { adminCommands } from './admin.js';
import type { CommandContext, CommandHandler } from './context.js';
import { handshakeCommands } from './handshake.js';
import { readCommands } from './read.js';
import { writeCommands } from './write.js';

export type { CommandContext, CommandHandler, ConnectionInfo } from './context.js';

const COMMANDS = new Map<string, CommandHandler>(
  Object.entries({ ...handshakeCommands, ...readCommands, ...writeCommands, ...adminCommands }),
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
  try {
    if (name === undefined) throw new CommandError(ErrorCode.FailedToParse, 'Empty command');
    const handler = COMMANDS.get(name);
    if (!handler) {
      throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
    }
    if (body.autocommit === false || body.startTransaction === true) {
      throw new CommandError(
        ErrorCode.IllegalOperation,
        'Transaction numbers are only allowed on a replica set member or mongos',
      );
    }
    const reply = handler(body, ctx);
    if (!('ok' in reply)) reply.ok = 1;
    return reply;
  } catch (err) {
    return toCommandError(err).toReply();
  }
}
