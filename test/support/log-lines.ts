import { Writable } from 'node:stream';

/** A log destination for createLogger that keeps each JSON line, parsed, for a test to inspect. */
export function logLines(): { lines: Record<string, any>[]; sink: Writable } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, sink };
}
