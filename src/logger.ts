/**
 * Structured JSON logs, one object a line (for collectors), or readable lines when stdout is a
 * terminal (a person is watching). Every line written while a request is being served carries its
 * request id, taken from AsyncLocalStorage so that code deep in the stack need not pass it around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

const requestScope = new AsyncLocalStorage<{ requestId: string }>();

export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestScope.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestScope.getStore()?.requestId;
}

/**
 * Where log lines go. When a person is watching (`tty`: stdout is a terminal), readable lines,
 * written synchronously. Otherwise JSON lines for a collector, written without blocking: a write in
 * flight gathers the lines logged meanwhile into the next one, one system call for many under load
 * (a burst of deliveries logs a line each), and what is left is written when the process exits. A
 * worker thread cannot see its process's terminal (it is told), and flushes before it ends
 * (`logger.flush`): pino does so only on the main thread.
 */
export function logDestination(tty = process.stdout.isTTY): pino.DestinationStream {
  if (tty)
    return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return pino.destination({ dest: 1, sync: false });
}

export function createLogger(level: string, destination: pino.DestinationStream = logDestination()): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const requestId = currentRequestId();
        const fields: Record<string, string> = requestId ? { requestId } : {};
        // Inside a span (tracing on): its ids, to find the trace of a log line and vice versa.
        const span = trace.getActiveSpan()?.spanContext();
        if (span) {
          fields.trace_id = span.traceId;
          fields.span_id = span.spanId;
        }
        return fields;
      },
    },
    destination,
  );
}
