/**
 * The service's log (its stdout, written to --service-log): its warnings and errors counted by
 * message (and error, with its first stack frame), most frequent first, for the soak's report.
 */
import { readFileSync } from 'node:fs';

export function summariseLog(file: string): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: string; msg?: string; err?: { type?: string; message?: string; stack?: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.level !== 'warn' && entry.level !== 'error' && entry.level !== 'fatal') continue;
    const frame = entry.err?.stack?.split('\n')[1]?.trim().replace(`${process.cwd()}/`, '');
    const error = entry.err ? ` — ${entry.err.type}: ${entry.err.message}${frame ? ` (${frame})` : ''}` : '';
    const key = `${entry.level} "${entry.msg}"${error}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort(([, a], [, b]) => b - a).map(([key, n]) => `${String(n).padStart(6)} x ${key}`);
}
