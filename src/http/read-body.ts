/**
 * Reads a request's body, at most `maxBytes` of it: a larger one (declared or sent) is refused with
 * `tooLarge()` as soon as it shows, and the rest is drained, so the answer can still be written.
 */
import type { IncomingMessage } from 'node:http';

export function readBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
