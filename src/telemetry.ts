/**
 * OpenTelemetry tracing, off unless an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SDK_DISABLED=true` forces it off). When on: spans
 * for incoming HTTP requests, GraphQL parse/validate/execute, MongoDB commands and outgoing undici
 * requests (webhooks), exported in batches over OTLP/HTTP (`OTEL_EXPORTER_OTLP_PROTOCOL`:
 * `http/protobuf`, the default, or `http/json`). The other standard variables apply
 * (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`, headers).
 *
 * Instrumentation patches `mongodb` and `graphql` (CommonJS packages: require-in-the-middle sees
 * their files load through the CommonJS loader, even when imported from ESM) and `node:http`, so it
 * must be registered before the app imports them: an entry point imports a `telemetry-*.ts` module
 * first. The SDK is loaded with `require` only when enabled: when tracing is off nothing but
 * `@opentelemetry/api` (a no-op) is loaded, and no module is patched.
 */
import { createRequire } from 'node:module';
import type { TracerProvider } from '@opentelemetry/api';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtlpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Instrumentation from '@opentelemetry/instrumentation';
import type * as GraphQLInstrumentation from '@opentelemetry/instrumentation-graphql';
import type * as HttpInstrumentation from '@opentelemetry/instrumentation-http';
import type * as MongoDBInstrumentation from '@opentelemetry/instrumentation-mongodb';
import type * as UndiciInstrumentation from '@opentelemetry/instrumentation-undici';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';
import { loadTracing, type TracingConfig } from './config.js';

let provider: (TracerProvider & { shutdown(): Promise<void> }) | undefined;

/**
 * Starts tracing if configured (see the module comment), as `defaultServiceName` unless
 * `OTEL_SERVICE_NAME` says otherwise. Returns whether it started. Idempotent.
 */
export function startTelemetry(defaultServiceName: string, tracing: TracingConfig = loadTracing()): boolean {
  if (provider) return true;
  if (!tracing.enabled) return false;
  const require = createRequire(import.meta.url);
  const sdk: typeof SdkTraceNode = require('@opentelemetry/sdk-trace-node');
  const resources: typeof Resources = require('@opentelemetry/resources');
  const { registerInstrumentations }: typeof Instrumentation = require('@opentelemetry/instrumentation');
  const {
    HttpInstrumentation: Http,
  }: typeof HttpInstrumentation = require('@opentelemetry/instrumentation-http');
  const {
    GraphQLInstrumentation: GraphQL,
  }: typeof GraphQLInstrumentation = require('@opentelemetry/instrumentation-graphql');
  const {
    MongoDBInstrumentation: MongoDB,
  }: typeof MongoDBInstrumentation = require('@opentelemetry/instrumentation-mongodb');
  const {
    UndiciInstrumentation: Undici,
  }: typeof UndiciInstrumentation = require('@opentelemetry/instrumentation-undici');

  const exporter =
    tracing.protocol === 'http/json'
      ? new (require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp).OTLPTraceExporter()
      : new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpProto).OTLPTraceExporter();

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (read by the env detector) win over the default.
  const resource = resources
    .resourceFromAttributes({ 'service.name': defaultServiceName })
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector] }));
  const tracerProvider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  tracerProvider.register();
  registerInstrumentations({
    tracerProvider,
    instrumentations: [
      new Http(),
      new GraphQL({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      new MongoDB(),
      new Undici(),
    ],
  });
  // The app imports node:http as an ES module, which require-in-the-middle does not see: require it
  // once here so that the instrumentation patches it before the app's import takes its exports.
  require('node:http');
  require('node:https');
  provider = tracerProvider;
  return true;
}

/** Flushes the spans not yet exported and stops the SDK, within `timeoutMs`; a no-op when off. */
export async function shutdownTelemetry(timeoutMs = 5_000): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  provider = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping.shutdown().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
