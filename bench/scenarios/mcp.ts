/**
 * `--only mcp`: the MCP door's list_meetings, a page of 10 as rest-list asks for it, a JSON-RPC
 * tools/call as an agent of protocol 2025-11-25 sends it (stateless: no initialize first), against
 * the service only (the baselines have no MCP door). Its answer must be the REST door's page; the
 * report sets its rate and commands beside rest-list's (targets.ts).
 */
import { benchAdmin } from '../dataset.js';
import { loadScenario } from './load-scenario.js';
import { meetingsPage } from './rest-list.js';

/** The structured content of the one SSE event of an answer. */
function structuredContentOf(body: Buffer): unknown {
  const data = /^data: (.*)$/m.exec(body.toString())?.[1];
  if (!data) throw new Error(`no event in the MCP answer: ${body.toString().slice(0, 300)}`);
  return (JSON.parse(data) as { result: { structuredContent: unknown } }).result.structuredContent;
}

export const mcp = loadScenario('mcp', () => ({
  name: 'MCP list_meetings',
  request: {
    method: 'POST',
    path: '/mcp',
    headers: {
      'x-api-key': benchAdmin.apiKey,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_meetings', arguments: { limit: 10 } },
    }),
  },
  targets: ['service'],
  sameAs: { name: 'REST GET /meetings', request: meetingsPage(10), answerOf: structuredContentOf },
}));
