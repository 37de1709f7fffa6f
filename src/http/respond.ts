/** Small helpers to answer with JSON or text. JSON is compressed when the client accepts it. */
import type { ServerResponse } from 'node:http';
import { sendCompressible } from './compression.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  return sendCompressible(
    res.req,
    res,
    status,
    { 'content-type': 'application/json; charset=utf-8', ...headers },
    JSON.stringify(body),
  );
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
