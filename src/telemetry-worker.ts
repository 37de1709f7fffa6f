/** Imported first by the worker CLI (src/cli/worker.ts) and the delivery thread: starts tracing (if configured) before the worker loads its modules. */
import { startTelemetry } from './telemetry.js';

startTelemetry('meetings-gateway-worker');
