/**
 * @meetings/embedded-mongo: a MongoDB-compatible server that needs no installation, for
 * development and tests. What the package offers, and all of it: the engine in this process
 * (start.ts), on a worker thread of its own (thread.ts), or in a child process a test can stop and
 * kill like a real server (process.ts), and the list of commands it answers.
 */

export { supportedCommands } from './commands/index.js';
export { type EngineProcess, startEngineProcess } from './process.js';
export { type EmbeddedMongo, type EmbeddedMongoOptions, startEmbeddedMongo } from './start.js';
export {
  type EmbeddedMongoThread,
  type EmbeddedMongoThreadOptions,
  startEmbeddedMongoThread,
} from './thread.js';
