/**
 * Structured JSON logs. Every line written while a request is being served carries its request
 * id, taken from AsyncLocalStorage so that code deep in the stack need not pass it around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Logger, pino } from 'pino';

export type { Logger };

const requestScope = new AsyncLocalStorage<{ requestId: string }>();

export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestScope.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestScope.getStore()?.requestId;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
    },
    destination,
  );
}
