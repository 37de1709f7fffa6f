/**
 * Where two JSON answers first differ, for the report when a baseline or a peer does not answer
 * like the service. '$: key order' when only the order of keys differs; '' when they are equal.
 */
import { isDeepStrictEqual } from 'node:util';

export function firstDifference(a: unknown, b: unknown, path = '$'): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
    if (found) return found;
  }
  return `${path}: key order`;
}

/** How an answer compares with the service's, as the log and the report say it. */
export function equalityOf(difference: string, whenEqual: string): string {
  if (difference === '') return whenEqual;
  return difference === '$: key order' ? 'deep-equal (key order differs)' : `MISMATCH at ${difference}`;
}
