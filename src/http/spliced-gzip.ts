/**
 * gzip answers spliced from compressed parts. An answer made of stored content (a page of
 * transcripts: megabytes, most of them the same stored bytes request after request) is written in
 * parts (raw-json.ts); each part is compressed once, as a raw deflate stream ending on a byte
 * boundary without a final block (Z_SYNC_FLUSH), and kept beside its bytes for as long as they
 * live (the content cache holds them): deflate streams cut so may be joined, as parallel gzip
 * (pigz --independent) joins its blocks. An answer is then a gzip header, its parts' deflate streams, an empty final
 * block and the trailer, whose CRC-32 is computed over the parts (zlib's crc32, a millisecond for
 * a few megabytes). Brotli has no such joint (a part's literals and distances depend on what came
 * before it), so it compresses each answer whole (compression.ts).
 */
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** gzip's header: deflate, no name or time, from an unknown system. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** An empty final block with fixed Huffman codes: the end of the deflate stream. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
/** Parts shorter than this are compressed on the event loop (a thread's round trip costs more). */
const SMALL = 16 * 1024;

/**
 * Each part's deflate stream, for as long as its bytes live (about a tenth of their size for
 * JSON: not counted in the content cache's budget). At the process's one gzip level.
 */
const compressed = new WeakMap<Uint8Array, Promise<Buffer>>();

function deflated(part: Uint8Array, level: number): Promise<Buffer> {
  let held = compressed.get(part);
  if (!held) {
    const options = { level, finishFlush: constants.Z_SYNC_FLUSH };
    held =
      part.length < SMALL ? Promise.resolve(deflateRawSync(part, options)) : deflateRawAsync(part, options);
    compressed.set(part, held);
    // A failure is not kept: the next answer tries again.
    held.catch(() => compressed.delete(part));
  }
  return held;
}

/** `parts`, joined, as a gzip member: the buffers to write, in order. */
export async function splicedGzip(parts: readonly Uint8Array[], level: number): Promise<Buffer[]> {
  const streams = await Promise.all(parts.filter((p) => p.length > 0).map((p) => deflated(p, level)));
  let crc = 0;
  let size = 0;
  for (const part of parts) {
    crc = crc32(part, crc);
    size += part.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4); // ISIZE: the length modulo 2^32
  return [HEADER, ...streams, FINAL_BLOCK, trailer];
}
