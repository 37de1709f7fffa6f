/**
 * The request mix driven against the service, every answer counted in the tally: once through
 * with fetch before the load (every kind answers once, so a wrong expectation shows at once), then
 * by autocannon's connections for a given time.
 */
import autocannon from 'autocannon';
import type { MixContext, MixEntry } from './request-mix.js';
import type { Tally } from './tally.js';

/** One pass through the mix with fetch, before the load: every kind answers once (a wrong expectation shows at once). */
export async function preflight(url: string, mix: MixEntry[], tally: Tally): Promise<void> {
  const context: MixContext = {};
  for (const entry of mix) {
    const res = await fetch(`${url}${entry.dynamicPath?.(context) ?? entry.path}`, {
      method: entry.method,
      headers: entry.headers,
      body: entry.body,
    });
    const body = await res.text();
    tally.count(entry.kind, entry.expect, res.status, body);
    entry.read?.(body, context);
  }
}

export interface LoadSummary {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
}

/** autocannon through the mix for `seconds`; every answer is counted by kind and status. */
export async function runMix(
  url: string,
  mix: MixEntry[],
  seconds: number,
  connections: number,
  tally: Tally,
): Promise<LoadSummary> {
  const requests: autocannon.Request[] = mix.map((entry) => ({
    method: entry.method,
    path: entry.path,
    headers: entry.headers,
    ...(entry.body === undefined ? {} : { body: entry.body }),
    // Both receive the connection's context, which autocannon empties each time the mix starts over.
    ...(entry.dynamicPath
      ? {
          setupRequest: (request: autocannon.Request, context: object) => ({
            ...request,
            path: entry.dynamicPath!(context),
          }),
        }
      : {}),
    onResponse: (status: number, body: string, context: object) => {
      tally.count(entry.kind, entry.expect, status, body);
      entry.read?.(body, context as MixContext);
    },
  }));
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 30,
    requests,
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
