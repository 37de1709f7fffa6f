/**
 * OpenTelemetry tracing (src/telemetry.ts): with OTEL_EXPORTER_OTLP_ENDPOINT set, the service
 * (started as `npm start` does, from the sources) exports spans over OTLP/HTTP to a receiver on
 * loopback: the HTTP request, the GraphQL operation and its MongoDB commands in one trace, and
 * its log lines carry that trace's id. Without the variable nothing is exported.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from '../delivery/support.js';
import { exitOf, outputOf, waitForOutput } from '../support/processes.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface ReceivedSpan extends OtlpSpan {
  service: string;
}

let receiver: Server;
let endpoint: string;
const bodies: { contentType: string | undefined; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces')
        bodies.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

function spans(): ReceivedSpan[] {
  return bodies.flatMap(({ body }) =>
    (JSON.parse(body).resourceSpans ?? []).flatMap(
      (rs: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }) => {
        const service = String(
          rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
        );
        return rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, service })));
      },
    ),
  );
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
}

/** Starts the service from the sources, sends a GraphQL query and a REST request, stops it with SIGTERM. */
async function runService(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/service.ts'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', DELIVERY_WORKER: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = outputOf(child);
  try {
    const banner = await waitForOutput(child, /REST base URL: (http:\/\/\S+)\/external[\s\S]*mk_demo\S+/);
    const url = /REST base URL: (http:\/\/\S+)\/external/.exec(banner)![1]!;
    const key = /mk_demo\S+/.exec(banner)![0];
    // Three times: graphql-jit runs it from the second time, out of the GraphQL instrumentation's sight.
    for (const requestId of ['trace-me-graphql', 'trace-me-graphql-2', 'trace-me-graphql-3']) {
      const graphql = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-request-id': requestId },
        body: JSON.stringify({ query: 'query TraceMe { meetings(first: 2) { edges { node { title } } } }' }),
      });
      expect(graphql.status).toBe(200);
      expect((await graphql.json()).data.meetings.edges).toHaveLength(2);
    }
    const rest = await fetch(`${url}/external/v1/meetings?limit=1`, {
      headers: { 'x-api-key': key, 'x-request-id': 'trace-me-rest' },
    });
    expect(rest.status).toBe(200);
    await rest.arrayBuffer();
    child.kill('SIGTERM');
    expect(await exitOf(child)).toEqual({ code: 0, signal: null });
    const logs = output.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { logs };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('tracing', () => {
  it('with OTEL_EXPORTER_OTLP_ENDPOINT: the HTTP request, the GraphQL operation and its MongoDB commands in one trace, flushed on SIGTERM; log lines carry the trace id', async () => {
    bodies.length = 0;
    const { logs } = await runService({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies[0]!.contentType).toBe('application/json');
    const all = spans();
    expect(new Set(all.map((s) => s.service))).toEqual(new Set(['meetings-gateway']));

    // Each /graphql request: a server span (kind 2) and, in its trace, the operation (from
    // graphql-js or graphql-jit) under it and the MongoDB commands (client spans).
    const servers = all.filter(
      (s) => s.kind === 2 && /graphql/.test(String(attribute(s, 'http.target') ?? attribute(s, 'url.path'))),
    );
    expect(servers, all.map((s) => s.name).join(', ')).toHaveLength(3);
    for (const server of servers) {
      const trace = all.filter((s) => s.traceId === server.traceId);
      expect(trace.map((s) => s.name)).toEqual(expect.arrayContaining(['query TraceMe', 'find meetings']));
      expect(trace.find((s) => s.name === 'query TraceMe')!.parentSpanId).toBeTruthy();
      const find = trace.find((s) => s.name === 'find meetings')!;
      expect(attribute(find, 'db.system.name') ?? attribute(find, 'db.system')).toBe('mongodb');
      expect(find.kind).toBe(3);
    }
    const jit = all.filter((s) => s.name === 'query TraceMe' && attribute(s, 'graphql.jit') === true);
    expect(jit).toHaveLength(2);
    const server = servers.find((s) =>
      all.some((x) => x.traceId === s.traceId && x.name === 'graphql.validate'),
    )!;
    expect(server).toBeDefined(); // the first run: parsed and validated, then interpreted

    // The REST request: its own trace, with the document it runs and its commands.
    const restServer = all.find(
      (s) => s.kind === 2 && /external/.test(String(attribute(s, 'http.target') ?? attribute(s, 'url.path'))),
    );
    expect(restServer).toBeDefined();
    expect(restServer!.traceId).not.toBe(server!.traceId);
    expect(all.filter((s) => s.traceId === restServer!.traceId).map((s) => s.name)).toContain(
      'find meetings',
    );

    // Every log line of a GraphQL request carries its trace's id, one trace per request.
    const traceIds = ['trace-me-graphql', 'trace-me-graphql-2', 'trace-me-graphql-3'].map((requestId) => {
      const lines = logs.filter((l) => l.requestId === requestId);
      expect(lines.length).toBeGreaterThan(0);
      const ids = new Set(lines.map((l) => l.trace_id));
      expect(ids.size).toBe(1);
      return [...ids][0];
    });
    expect(new Set(traceIds)).toEqual(new Set(servers.map((s) => s.traceId)));
    expect(logs.filter((l) => l.msg === 'listening')[0]).not.toHaveProperty('trace_id');
  }, 60_000);

  it('without an OTLP endpoint: no SDK, nothing exported, no trace ids in the logs', async () => {
    bodies.length = 0;
    const { logs } = await runService({
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(bodies).toEqual([]);
    expect(logs.filter((l) => 'trace_id' in l)).toEqual([]);
  }, 60_000);

  it('the standalone worker (meetings-gateway-worker): a span per delivery attempt, with the webhook POST nested under it', async () => {
    bodies.length = 0;
    const [t, rx] = await startDeliveryTest();
    try {
      const tom = 'team admin (Sales)';
      await createWebhook(t, tom, `${rx.url}/traced`, { triggeredFor: ['MY_RECORDINGS'] });
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/cli/worker.ts'], {
        env: {
          ...process.env,
          MONGODB_URI: t.app.mongoUri,
          LOG_LEVEL: 'debug', // a delivered attempt's line is a debug line
          EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
          DELIVERY_POLL_MS: '100',
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output = outputOf(worker);
      try {
        await waitForOutput(worker, /delivery worker started/);
        await ingest(t, recordingJson(emailOf(tom)));
        await rx.waitFor(1, undefined, 30_000);
        await waitForOutput(worker, /"msg":"delivery attempt"/);
        worker.kill('SIGTERM');
        expect(await exitOf(worker)).toEqual({ code: 0, signal: null });
      } finally {
        worker.kill('SIGKILL');
      }
      const all = spans();
      const attempt = all.find((s) => s.name === 'delivery attempt');
      expect(attempt, all.map((s) => s.name).join(', ')).toBeDefined();
      expect(attempt!.service).toBe('meetings-gateway-worker');
      expect(attribute(attempt!, 'delivery.kind')).toBe('webhook_event');
      expect(attribute(attempt!, 'delivery.outcome')).toBe('delivered');
      expect(attribute(attempt!, 'http.response.status_code')).toBe(200);
      expect(attribute(attempt!, 'delivery.message_id')).toBe(String(rx.received[0]!.headers['webhook-id']));
      const post = all.find((s) => s.parentSpanId === attempt!.spanId && s.name === 'POST');
      expect(post?.kind).toBe(3); // client
      const line = output.stdout.split('\n').find((l) => l.includes('"msg":"delivery attempt"'))!;
      expect(JSON.parse(line).trace_id).toBe(attempt!.traceId);
    } finally {
      await rx.close();
      await t.close();
    }
  }, 60_000);
});
