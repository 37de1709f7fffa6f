// MongoDB features the engine does not offer, refused with a clear error instead of being silently
// ignored (the README lists them: packages/embedded-mongo/README.md). NotImplemented (238) where a real mongod would do the work;
// mongod's own refusal where a standalone mongod refuses too.
import { CommandError, ErrorCode } from '../errors.js';
import { type Document, isPlainObject } from '../values.js';

function notOffered(what: string): CommandError {
  return new CommandError(ErrorCode.NotImplemented, `${what} is not supported by the embedded engine`);
}

/** `create` options that change what a collection is or accepts. */
const CREATE_OPTIONS: Record<string, string> = {
  capped: 'a capped collection',
  timeseries: 'a time series collection',
  clusteredIndex: 'a clustered collection',
  encryptedFields: 'queryable encryption',
  changeStreamPreAndPostImages: 'changeStreamPreAndPostImages',
};

const STAGES: Record<string, CommandError> = {
  // A standalone mongod has no oplog to stream from.
  $changeStream: new CommandError(40573, 'The $changeStream stage is only supported on replica sets'),
};

/** Throws for a command that asks for something the engine does not do. */
export function refuseUnsupported(name: string, cmd: Document): void {
  if (name === 'create') {
    for (const [option, what] of Object.entries(CREATE_OPTIONS)) {
      const value = cmd[option];
      if (value !== undefined && value !== null && value !== false) throw notOffered(what);
    }
  }
  if (name === 'find' && cmd.tailable === true) {
    // Tailable cursors need a capped collection, and the engine has none.
    throw new CommandError(
      ErrorCode.BadValue,
      'error processing query: tailable cursor requested on non capped collection',
    );
  }
  if (name === 'aggregate' && Array.isArray(cmd.pipeline)) {
    for (const stage of cmd.pipeline) {
      if (!isPlainObject(stage)) continue;
      const refusal = STAGES[Object.keys(stage)[0] ?? ''];
      if (refusal) throw refusal;
    }
  }
}
