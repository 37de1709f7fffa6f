/**
 * Response compression for every door: the REST door (through sendJson), Yoga's JSON answers and
 * the GraphiQL page. Brotli when the client accepts it, else gzip, else identity; never below
 * MIN_COMPRESSED_BYTES (the headers cost more than the saving). Compression runs in zlib streams
 * (libuv's thread pool) piped into the response, so a 20 MB page neither blocks the event loop
 * nor sits compressed in memory ahead of a slow client (pipeline honours backpressure).
 *
 * Levels (measured on 2–25 MB meeting pages, see docs/api/endpoints.md): brotli quality 4 compresses
 * JSON smaller than gzip level 6 in less CPU time; quality 5+ costs markedly more time for a few
 * percent. Static pages are compressed once, harder (brotli 9, gzip 9), and cached.
 *
 * An answer written in parts (stored content between the text around it) is gzipped by splicing
 * its parts' deflate streams, each made once (spliced-gzip.ts): a page of transcripts then costs
 * about what it costs uncompressed. So when a client accepts gzip as much as brotli (browsers
 * send both), such an answer goes as gzip.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import {
  brotliCompress,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  type ZlibOptions,
} from 'node:zlib';
import { splicedGzip } from './spliced-gzip.js';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = 'br' | 'gzip';

export const MIN_COMPRESSED_BYTES = 1024;
export const BROTLI_QUALITY = 4;
/**
 * Brotli's window, 2^18 = 256 KB rather than its default 4 MB: each stream holds its window and
 * hash tables, so ten 2-4 MB pages compressed at once grew the process by ~100 MB with the default
 * and ~50 MB with this; at quality 4 the answers also came out ~10% smaller and sooner (JSON
 * repeats itself within a few kilobytes). Measured on transcript JSON, 10 streams at once.
 */
export const BROTLI_WINDOW_BITS = 18;
export const GZIP_LEVEL = 6;

/**
 * The encoding to answer with, from an Accept-Encoding header: the client's highest q-value among
 * br and gzip (`*` counts for both), `onTie` (brotli unless said) on a tie; undefined for identity.
 */
export function negotiateEncoding(
  acceptEncoding: string | string[] | undefined,
  onTie: Encoding = 'br',
): Encoding | undefined {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  if (!header) return undefined;
  const q: Record<string, number> = {};
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q[name.trim()] = Number.isFinite(value) ? value : 0;
  }
  const weight = (name: Encoding) => q[name] ?? q['*'] ?? 0;
  const br = weight('br');
  const gzip = weight('gzip');
  if (br <= 0 && gzip <= 0) return undefined;
  if (br === gzip) return onTie;
  return br > gzip ? 'br' : 'gzip';
}

function compressor(encoding: Encoding, size: number) {
  return encoding === 'br'
    ? createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: size,
        },
      })
    : createGzip({ level: GZIP_LEVEL } satisfies ZlibOptions);
}

/** Adds Accept-Encoding to Vary once, keeping whatever a door (CORS) put there. */
function addVary(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  const current = [res.getHeader('vary'), headers.vary].filter(Boolean).join(', ');
  if (/\baccept-encoding\b/i.test(current)) return;
  headers.vary = current ? `${current}, Accept-Encoding` : 'Accept-Encoding';
}

function withoutLength(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const copy: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() !== 'content-length') copy[name.toLowerCase()] = value;
  return copy;
}

function writeParts(res: ServerResponse, parts: readonly Uint8Array[]): void {
  res.cork(); // the parts go out together (one writev), not one packet each
  for (const part of parts) res.write(part);
  res.uncork();
  res.end();
}

/**
 * Answers with `body` (text, bytes, or bytes in parts, written in order without being joined),
 * compressed when the request accepts it and the body is large enough. Resolves when the body is
 * handed to the socket (or the client went away).
 */
export async function sendCompressible(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string | Uint8Array | readonly Uint8Array[],
): Promise<void> {
  const parts = typeof body === 'string' ? [Buffer.from(body)] : body instanceof Uint8Array ? [body] : body;
  const length = parts.reduce((total, part) => total + part.length, 0);
  const out = withoutLength(headers);
  addVary(res, out);
  const spliced = parts.length > 1;
  const encoding =
    length >= MIN_COMPRESSED_BYTES
      ? negotiateEncoding(req.headers['accept-encoding'], spliced ? 'gzip' : 'br')
      : undefined;
  const bodyless = req.method === 'HEAD' || status === 204 || status === 304;
  if (!encoding || bodyless) {
    res.writeHead(status, { ...out, 'content-length': length });
    if (bodyless) res.end();
    else writeParts(res, parts);
    return;
  }
  if (encoding === 'gzip' && spliced) {
    const gzipped = await splicedGzip(parts, GZIP_LEVEL);
    const size = gzipped.reduce((total, part) => total + part.length, 0);
    res.writeHead(status, { ...out, 'content-encoding': 'gzip', 'content-length': size });
    writeParts(res, gzipped);
    return;
  }
  res.writeHead(status, { ...out, 'content-encoding': encoding });
  try {
    await pipeline(Readable.from(parts), compressor(encoding, length), res);
  } catch {
    // The client closed the connection; pipeline has destroyed the streams.
  }
}

/**
 * A strong entity tag of an answer's bytes (identity), the same whatever encoding carries them:
 * every encoding decompresses to those bytes, so a cached copy in any of them is still good.
 */
export function entityTag(bytes: Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** Whether the request's If-None-Match names `etag` (weak comparison, as RFC 9110 has it for GET). */
export function notModified(req: IncomingMessage, etag: string): boolean {
  const match = req.headers['if-none-match'];
  return (
    match !== undefined &&
    (match.trim() === '*' || match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
  );
}

/** A 304: the validators and caching headers of the answer it stands for, no body. */
export function sendNotModified(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  const out = withoutLength(headers);
  delete out['content-type'];
  addVary(res, out);
  res.writeHead(304, out);
  res.end();
}

/**
 * A page that never changes while the process runs (GraphiQL: ~9 MB of script): compressed once
 * in each encoding and answered with an ETag, so a browser's revalidation costs a 304.
 */
export class PrecompressedPage {
  readonly etag: string;

  private constructor(
    private readonly variants: Record<Encoding | 'identity', Buffer>,
    private readonly contentType: string,
    private readonly cacheControl: string,
  ) {
    this.etag = entityTag(variants.identity);
  }

  /**
   * Compresses off the event loop. Brotli 9 rather than 11: on GraphiQL's 9 MB, 11 takes ~25 s for
   * 8% fewer bytes, 9 takes ~1 s (1.86 MB against 2.44 MB for gzip 9).
   */
  static async create(
    body: string | Buffer,
    contentType: string,
    cacheControl = 'no-cache', // revalidate each time: the ETag makes that a 304
  ): Promise<PrecompressedPage> {
    const identity = typeof body === 'string' ? Buffer.from(body) : body;
    const [br, gz] = await Promise.all([
      brotliAsync(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 9,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzipAsync(identity, { level: 9 }),
    ]);
    return new PrecompressedPage({ identity, br, gzip: gz }, contentType, cacheControl);
  }

  sizes(): Record<Encoding | 'identity', number> {
    return {
      identity: this.variants.identity.length,
      br: this.variants.br.length,
      gzip: this.variants.gzip.length,
    };
  }

  send(req: IncomingMessage, res: ServerResponse, extraHeaders: OutgoingHttpHeaders = {}): void {
    const headers: OutgoingHttpHeaders = {
      ...withoutLength(extraHeaders),
      etag: this.etag,
      'cache-control': this.cacheControl,
    };
    if (notModified(req, this.etag)) {
      sendNotModified(res, headers);
      return;
    }
    addVary(res, headers);
    const encoding = negotiateEncoding(req.headers['accept-encoding']);
    const body = this.variants[encoding ?? 'identity'];
    res.writeHead(200, {
      ...headers,
      'content-type': this.contentType,
      'content-length': body.length,
      ...(encoding ? { 'content-encoding': encoding } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
