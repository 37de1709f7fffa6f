/** Child process: the embedded MongoDB engine alone, so the servers measured reach it over the wire. */
import { startEmbeddedMongo } from '@meetings/embedded-mongo';
import { failToParent, serveParent } from './ipc.js';

try {
  const engine = await startEmbeddedMongo({ port: Number(process.env.EMBEDDED_MONGO_PORT ?? 0) });
  serveParent({ info: { uri: engine.uri }, stop: () => engine.close() });
} catch (error) {
  failToParent(error);
}
