/**
 * The MCP door as a script or an agent of a 2025 revision calls it, without an SDK: a JSON-RPC
 * message POSTed on its own (the door is stateless), and the message of its answer (JSON, or the
 * one SSE event the 2025 transport writes).
 */
import { authHeaders } from './app.js';

export function postMcp(
  url: string,
  credential: string,
  message: unknown,
  version = '2025-11-25',
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...authHeaders(credential),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
    },
    body: JSON.stringify(message),
  });
}

/** A `tools/call` of `name` with `args`. */
export const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The JSON-RPC message an answer carries. */
export async function messageOf(res: Response): Promise<any> {
  const text = await res.text();
  const sse = res.headers.get('content-type')?.startsWith('text/event-stream');
  return JSON.parse(sse ? /^data: (.*)$/m.exec(text)![1]! : text);
}
