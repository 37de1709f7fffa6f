// The logical sessions the engine has seen, as mongod's local session cache keeps them: each
// command's `lsid` is recorded with its last use, and `$listLocalSessions` (a database aggregate's
// first stage) lists them. Without authentication every session belongs to the same no-user, whose
// `uid` is mongod's digest of no user name (SHA-256 of nothing). A session unused for 30 minutes
// (mongod's localLogicalSessionTimeoutMinutes) is forgotten; endSessions does not forget it at once,
// as mongod's cache keeps an ended session until its next refresh.
import { createHash } from 'node:crypto';
import { Binary } from 'bson';
import { CommandError, ErrorCode } from './errors.js';
import { type Document, isPlainObject, keyString } from './values.js';

const SESSION_TIMEOUT_MS = 30 * 60 * 1000;
const NO_USER_UID = new Binary(createHash('sha256').digest());

export class SessionCache {
  private readonly sessions = new Map<string, { id: unknown; lastUse: Date }>();

  /** Notes the use of the session a command names in its `lsid`. */
  touch(lsid: unknown): void {
    if (!isPlainObject(lsid) || lsid.id === undefined) return;
    this.sessions.set(keyString(lsid.id), { id: lsid.id, lastUse: new Date() });
  }

  /** `$listLocalSessions`' documents: `{ _id: { id, uid }, lastUse }` of each live session. */
  list(spec: unknown): Document[] {
    if (!isPlainObject(spec)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        '$listLocalSessions options must be specified in an object',
      );
    }
    for (const field of Object.keys(spec)) {
      if (field !== 'allUsers' && field !== 'users') {
        throw new CommandError(
          ErrorCode.Location40415,
          `BSON field '$listLocalSessions.${field}' is an unknown field.`,
        );
      }
    }
    const now = Date.now();
    const out: Document[] = [];
    for (const [key, session] of this.sessions) {
      if (now - session.lastUse.getTime() > SESSION_TIMEOUT_MS) {
        this.sessions.delete(key);
        continue;
      }
      out.push({ _id: { id: session.id, uid: NO_USER_UID }, lastUse: session.lastUse });
    }
    // `users` names authenticated users; without authentication no session is theirs.
    return Array.isArray(spec.users) ? [] : out;
  }
}
