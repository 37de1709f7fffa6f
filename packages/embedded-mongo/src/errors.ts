import type { Document } from './values.js';

/** Server error codes used by the engine (same numbers and names as mongod). */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  MaxTimeMSExpired: 50,
  NamespaceExists: 48,
  InvalidIdField: 53,
  CannotCreateIndex: 67,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  NoReplicationEnabled: 76,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  OperationFailed: 96,
  CommandNotSupported: 115,
  /** A write, or an index command, on a view. */
  CommandNotSupportedOnView: 166,
  /** A document a collection's validator rejects. */
  DocumentValidationFailure: 121,
  /** collMod `unique: true` on an index whose keys have duplicates. */
  CannotConvertIndexToUnique: 359,
  ViewDepthLimitExceeded: 149,
  OptionNotSupportedOnView: 167,
  GraphContainsCycle: 150,
  InvalidIndexSpecificationOption: 197,
  NotImplemented: 238,
  /** `$$name` of a variable neither the command's `let` nor the expression defines. */
  Location17276: 17276,
  Location40324: 40324,
  Location40571: 40571,
  /** IDL: a required command field is absent. */
  Location40414: 40414,
  /** IDL: a command field that is not in the command's definition. */
  Location40415: 40415,
  /** IDL: a `validator: { gte: 0 }` field is negative. */
  Location51024: 51024,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  /** An index key longer than the store keeps (index-store.ts). */
  KeyTooLong: 17280,
  OutOfDiskSpace: 14031,
} as const;

const codeNames = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

export function codeName(code: number): string {
  return codeNames.get(code) ?? `Location${code}`;
}

/** An error that becomes a `{ ok: 0, errmsg, code, codeName }` reply (or a write error). */
export class CommandError extends Error {
  readonly code: number;
  readonly extra: Document;

  constructor(code: number, message: string, extra: Document = {}) {
    super(message);
    this.name = 'CommandError';
    this.code = code;
    this.extra = extra;
  }

  get codeName(): string {
    return codeName(this.code);
  }

  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** Shape used inside `writeErrors` arrays. */
  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

export class DuplicateKeyError extends CommandError {
  constructor(message: string, keyPattern: Document, keyValue: Document) {
    super(ErrorCode.DuplicateKey, message, { keyPattern, keyValue });
    this.name = 'DuplicateKeyError';
  }
}

export function badValue(message: string): CommandError {
  return new CommandError(ErrorCode.BadValue, message);
}

export function typeMismatch(message: string): CommandError {
  return new CommandError(ErrorCode.TypeMismatch, message);
}

export function failedToParse(message: string): CommandError {
  return new CommandError(ErrorCode.FailedToParse, message);
}

export function namespaceNotFound(message: string): CommandError {
  return new CommandError(ErrorCode.NamespaceNotFound, message);
}

/**
 * Converts anything thrown while executing a command into a CommandError. Errors from mingo
 * (invalid operators, bad expressions) are reported as BadValue like mongod's parse errors.
 */
export function toCommandError(err: unknown): CommandError {
  if (err instanceof CommandError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const stage = /unregistered pipeline operator (\$?\w+)/.exec(message);
  if (stage) {
    return new CommandError(ErrorCode.Location40324, `Unrecognized pipeline stage name: '${stage[1]}'`);
  }
  if (message.startsWith('Use of undefined variable')) {
    return new CommandError(ErrorCode.Location17276, message);
  }
  if (/immutable field/i.test(message)) return new CommandError(ErrorCode.ImmutableField, message);
  if (/would create a conflict/.test(message)) {
    return new CommandError(ErrorCode.ConflictingUpdateOperators, message);
  }
  if (/Unknown update operator/.test(message)) return new CommandError(ErrorCode.FailedToParse, message);
  if (message === "$group specification must include an '_id'") {
    return new CommandError(15955, 'a group specification must include an _id');
  }
  const operator = /^unknown query operator (\$?\w+)/.exec(message);
  if (operator) return badValue(`unknown operator: ${operator[1]}`);
  if (err instanceof Error && err.constructor.name === 'MingoError') return badValue(message);
  if (err instanceof TypeError || err instanceof RangeError) return badValue(message);
  return new CommandError(ErrorCode.InternalError, message);
}
