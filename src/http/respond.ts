/** Small helpers to answer with JSON or text, or to tell that nobody is left to answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
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
