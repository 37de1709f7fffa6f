/**
 * The load tool: Debian's `wrk` in a process of its own, at a fixed concurrency over loopback,
 * reduced to the numbers the report shows. A generator inside the bench's own node process
 * (autocannon, before) could not pass ~335 requests/s on large answers, so it measured itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/external/v1/meetings?limit=10`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /**
   * Responses with a status of 400 or more. wrk counts these itself; telling 2xx from 3xx would
   * take its Lua `response()` hook, which copies every body into Lua and halves the rate of a
   * server answering 2.4 MB from memory (measured: 792 -> 406 requests/s).
   */
  errorStatus: number;
  /** Socket errors (connect, read, write), and requests that outlived the timeout. */
  errors: number;
  timeouts: number;
  /** Bytes read off the socket per response (headers included): what compression saves. */
  wireBytesPerRequest: number;
}

/** A Lua string literal holding `text` exactly (printable ASCII kept, every other byte escaped). */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    // Always three digits: Lua reads up to three, so a newline (\10) before a "1" would read as \101.
    out += printable ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** The line wrk's `done()` hook prints, prefixed so it is found among wrk's own summary. */
const resultMarker = 'BENCH_RESULT ';

/** The wrk script: the request, and a `done()` that prints the figures as one JSON line. */
export function wrkScript(request: LoadRequest): string {
  return [
    `wrk.method = ${luaString(request.method)}`,
    `wrk.path = ${luaString(request.path)}`,
    ...Object.entries(request.headers).map(
      ([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`,
    ),
    ...(request.body === undefined ? [] : [`wrk.body = ${luaString(request.body)}`]),
    'function done(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format("\\n${resultMarker}{\\"requests\\":%d,\\"us\\":%d,\\"bytes\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"p50\\":%.1f,\\"p99\\":%.1f}\\n",`,
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(99)))',
    'end',
    '',
  ].join('\n');
}

/** Reads the `done()` line out of wrk's output. */
export function parseWrkOutput(stdout: string): LoadResult {
  const line = stdout.split('\n').find((l) => l.startsWith(resultMarker));
  if (!line) throw new Error(`wrk printed no result:\n${stdout.slice(-2000)}`);
  const r = JSON.parse(line.slice(resultMarker.length)) as Record<string, number>;
  const seconds = r.us! / 1e6;
  return {
    requests: r.requests!,
    seconds,
    rps: seconds > 0 ? r.requests! / seconds : 0,
    // wrk keeps latencies in microseconds; the report shows milliseconds.
    p50: r.p50! / 1000,
    p99: r.p99! / 1000,
    errorStatus: r.status!,
    errors: r.connect! + r.read! + r.write!,
    timeouts: r.timeout!,
    wireBytesPerRequest: r.requests! > 0 ? r.bytes! / r.requests! : 0,
  };
}

export async function runLoad(
  baseUrl: string,
  request: LoadRequest,
  options: { connections: number; seconds: number },
): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    writeFileSync(script, wrkScript(request));
    // One wrk thread: on a small machine it leaves the cores to the server measured, and one
    // thread reads answers from memory faster than a node server writes them.
    const { stdout } = await promisify(execFile)(
      'wrk',
      [
        '--threads',
        '1',
        '--connections',
        String(options.connections),
        '--duration',
        `${Math.max(1, Math.round(options.seconds))}s`,
        '--timeout',
        '30s',
        '--script',
        script,
        baseUrl,
      ],
      { maxBuffer: 1 << 20 },
    );
    return parseWrkOutput(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One request with fetch: status, headers and the exact body bytes. */
export async function fetchOnce(
  baseUrl: string,
  request: LoadRequest,
): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: Buffer.from(await res.arrayBuffer()),
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
