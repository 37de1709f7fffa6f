/**
 * Child process: the embedded MongoDB engine alone, so the servers measured reach it over the wire;
 * durable in EMBEDDED_MONGO_PATH when set (the engine scenario's open case). It reports how long
 * opening took, from the call to listening.
 */
import { startEmbeddedMongo } from '@meetings/embedded-mongo';
import { failToParent, serveParent } from './ipc.js';

try {
  const started = performance.now();
  const engine = await startEmbeddedMongo({
    port: Number(process.env.EMBEDDED_MONGO_PORT ?? 0),
    path: process.env.EMBEDDED_MONGO_PATH,
  });
  serveParent({
    info: { uri: engine.uri, openMs: performance.now() - started },
    calls: {
      // What the engine keeps, without the garbage it has yet to collect (the engine scenario's memory row).
      collectGarbage: () => (globalThis as { gc?: () => void }).gc?.(),
    },
    stop: () => engine.close(),
  });
} catch (error) {
  failToParent(error);
}
