/**
 * `npx tsx bench/compression-levels.ts`: bytes and CPU time of brotli and gzip levels on pages of
 * generated meetings (the every-include shape, 2–20 MB of JSON), to choose the levels that
 * src/http/compression.ts uses for answers compressed per request.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { generateMeeting } from './dataset.js';

const candidates: [string, (b: Buffer) => Buffer][] = [
  ['gzip 1', (b) => gzipSync(b, { level: 1 })],
  ['gzip 6', (b) => gzipSync(b, { level: 6 })],
  ...[1, 3, 4, 5, 6].map((q): [string, (b: Buffer) => Buffer] => [
    `brotli ${q}`,
    (b) =>
      brotliCompressSync(b, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: q,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
        },
      }),
  ]),
];

for (const meetings of [20, 100]) {
  const page = Buffer.from(
    JSON.stringify({
      items: Array.from({ length: meetings }, (_, i) =>
        generateMeeting(1, i, meetings, { minEntries: 200, maxEntries: 600 }),
      ),
    }),
  );
  console.log(`${meetings} meetings: ${(page.length / 1e6).toFixed(1)} MB`);
  for (const [name, compress] of candidates) {
    compress(page); // warm
    const cpu = process.cpuUsage();
    const out = compress(page);
    const { user, system } = process.cpuUsage(cpu);
    const ms = (user + system) / 1000;
    console.log(
      `  ${name.padEnd(9)} ${(out.length / 1e6).toFixed(2).padStart(6)} MB  ratio ${(page.length / out.length).toFixed(1).padStart(4)}  ${ms.toFixed(0).padStart(5)} ms CPU  ${((page.length / 1e6 / ms) * 1000).toFixed(0)} MB/s`,
    );
  }
}
