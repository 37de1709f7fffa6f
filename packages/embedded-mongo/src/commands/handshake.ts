// Handshake, diagnostics and session commands.
import { hostname } from 'node:os';
import { UUID } from 'bson';
import { CommandError, ErrorCode } from '../errors.js';
import type { Document } from '../values.js';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE_BYTES } from '../wire.js';
import type { CommandContext, CommandHandler } from './context.js';
import { serverStatusSections } from './counters.js';

/** The mongod release the engine answers as: its commands, replies and errors are 8.0's. */
export const SERVER_VERSION = '8.0.0';
/** MongoDB 8.0's. The mongodb 7 driver requires at least 9 (MongoDB 4.4), and 25 for `client.bulkWrite`. */
export const MAX_WIRE_VERSION = 25;
/** featureCompatibilityVersion: the major and minor of SERVER_VERSION. */
const FEATURE_COMPATIBILITY_VERSION = SERVER_VERSION.split('.').slice(0, 2).join('.');
export const MAX_WRITE_BATCH_SIZE = 100_000;
export const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;

function helloReply(cmd: Document, ctx: CommandContext, legacy: boolean): Document {
  const reply: Document = {};
  if (cmd.helloOk === true) reply.helloOk = true;
  if (legacy) reply.ismaster = true;
  else reply.isWritablePrimary = true;
  Object.assign(reply, {
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
    maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
    connectionId: ctx.connection.id,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
  });
  return reply;
}

const hello: CommandHandler = (cmd, ctx) => helloReply(cmd, ctx, false);
const isMaster: CommandHandler = (cmd, ctx) => helloReply(cmd, ctx, true);

const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: 'embedded-mongo',
  versionArray: [...SERVER_VERSION.split('.').map(Number), 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['embedded-memory'],
  javascriptEngine: 'none',
  modules: [],
  openssl: { running: 'disabled', compiled: 'disabled' },
});

const hostInfo: CommandHandler = () => ({
  system: { currentTime: new Date(), hostname: hostname(), cpuAddrSize: 64, numCores: 1 },
  os: { type: process.platform, name: process.platform },
  extra: {},
});

const serverStatus: CommandHandler = (_cmd, ctx) => ({
  ...serverStatusSections(ctx.engine),
  host: hostname(),
  version: SERVER_VERSION,
  process: 'embedded-mongo',
  pid: process.pid,
  uptime: Math.floor((Date.now() - ctx.engine.startedAt.getTime()) / 1000),
  uptimeMillis: Date.now() - ctx.engine.startedAt.getTime(),
  localTime: new Date(),
  metrics: { cursor: { open: { total: ctx.engine.cursors.openCount } } },
});

const getParameter: CommandHandler = (cmd) => {
  const reply: Document = {};
  if (cmd.featureCompatibilityVersion !== undefined || cmd.getParameter === '*') {
    reply.featureCompatibilityVersion = { version: FEATURE_COMPATIBILITY_VERSION };
  }
  return reply;
};

const whatsmyuri: CommandHandler = (_cmd, ctx) => ({
  you: `${ctx.connection.remoteAddress ?? '127.0.0.1'}:${ctx.connection.remotePort ?? 0}`,
});

const connectionStatus: CommandHandler = () => ({
  authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] },
});

const ok: CommandHandler = () => ({});

const startSession: CommandHandler = () => ({
  id: { id: new UUID() },
  timeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
});

const notOnStandalone: CommandHandler = () => {
  throw new CommandError(
    ErrorCode.IllegalOperation,
    'Transaction numbers are only allowed on a replica set member or mongos',
  );
};

/** The replica set commands: a standalone has no replica set (mongod's NoReplicationEnabled). */
const noReplicaSet: CommandHandler = () => {
  throw new CommandError(ErrorCode.NoReplicationEnabled, 'not running with --replSet');
};

export const handshakeCommands: Record<string, CommandHandler> = {
  hello,
  isMaster,
  ismaster: isMaster,
  ping: ok,
  buildInfo,
  buildinfo: buildInfo,
  hostInfo,
  serverStatus,
  getParameter,
  getCmdLineOpts: () => ({ argv: ['embedded-mongo'], parsed: {} }),
  whatsmyuri,
  connectionStatus,
  logout: ok,
  endSessions: ok,
  killSessions: ok,
  killAllSessions: ok,
  killAllSessionsByPattern: ok,
  refreshSessions: ok,
  startSession,
  abortTransaction: notOnStandalone,
  commitTransaction: notOnStandalone,
  replSetGetStatus: noReplicaSet,
  replSetGetConfig: noReplicaSet,
};
