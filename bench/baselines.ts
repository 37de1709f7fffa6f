/**
 * Child process: the *direct* baseline (direct.ts) on its own port and its own driver connection to
 * the engine, with the service's rate-limit policy, counting its MongoDB commands.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, rateLimitPolicyOf } from '../src/config.js';
import { connectDatabase } from '../src/db/connection.js';
import { directHandler } from './direct.js';
import { commandCounter, failToParent, serveParent } from './ipc.js';

try {
  const config = loadConfig(process.env);
  if (!config.MONGODB_URI) throw new Error('MONGODB_URI is required');
  const database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB, { monitorCommands: true });
  const counter = commandCounter(database);
  const handle = directHandler(database.collections, rateLimitPolicyOf(config));
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serveParent({
    info: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    ...counter,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    },
  });
} catch (error) {
  failToParent(error);
}
