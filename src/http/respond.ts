/**
 * Small helpers to answer with JSON (compressed when the client accepts it; stored content copied
 * in as its bytes) or text, or to tell that nobody is left to answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serialiseJsonParts } from '../domain/raw-json.js';
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
    serialiseJsonParts(body),
  );
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The client closed the connection (mid-body or mid-response): whatever failed then failed for that
 * reason, which is routine and worth a debug line, not an error with a stack.
 */
export function clientGone(req: IncomingMessage): boolean {
  return req.socket.destroyed;
}
