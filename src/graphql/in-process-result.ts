/**
 * The REST door runs its documents through Yoga in-process. Serialising a result to JSON only for
 * the door to parse it again doubled the cost of large answers (a page with transcripts is
 * megabytes), so a request that brings a `handOver` callback in its server context gets the
 * result object itself; Yoga answers it with an empty body. Every other plugin (authentication,
 * limits, masking, rate limits and their headers) has run by then, exactly as for /graphql.
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface InProcessCaller {
  /** Receives the (masked) result of a single, non-streamed operation. */
  handOver?: (result: ExecutionResult) => void;
}

export function inProcessResult(): Plugin<Record<string, unknown>, InProcessCaller> {
  return {
    onResultProcess({ result, serverContext, setResultProcessor }) {
      const handOver = serverContext.handOver;
      if (!handOver || Array.isArray(result) || Symbol.asyncIterator in result) return;
      setResultProcessor((processed, fetchAPI) => {
        const result = processed as ExecutionResult;
        handOver(result);
        // The headers errors ask for (Retry-After), as Yoga's own processor would set them.
        const headers: Record<string, string> = {};
        for (const error of result.errors ?? [])
          Object.assign(headers, (error.extensions?.http as { headers?: Record<string, string> })?.headers);
        return new fetchAPI.Response(null, { status: 200, headers });
      }, 'application/json');
    },
  };
}
