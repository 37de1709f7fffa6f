/** Imported first by src/cli/service.ts: starts tracing (if configured) before the app loads its modules. */
import { startTelemetry } from './telemetry.js';

startTelemetry('meetings-gateway');
