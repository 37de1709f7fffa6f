/** The load tool: autocannon at a fixed concurrency over loopback, reduced to the numbers the report shows. */
import autocannon from 'autocannon';

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
  /** Responses by status class, and connection errors / timeouts. */
  status: { '2xx': number; '3xx': number; '4xx': number; '5xx': number };
  errors: number;
  timeouts: number;
  /** Bytes read off the socket per response (headers included): what compression saves. */
  wireBytesPerRequest: number;
}

export async function runLoad(
  baseUrl: string,
  request: LoadRequest,
  options: { connections: number; seconds: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: `${baseUrl}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: options.connections,
    duration: options.seconds,
    pipelining: 1,
    timeout: 30,
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    status: { '2xx': result['2xx'], '3xx': result['3xx'], '4xx': result['4xx'], '5xx': result['5xx'] },
    errors: result.errors,
    timeouts: result.timeouts,
    wireBytesPerRequest: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
  };
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
