/**
 * A webhook receiver: verifies each request's Standard Webhooks signature with the
 * `standardwebhooks` package, prints the meeting it carries and answers 204; a request without the
 * signature headers gets 400, one whose signature (or timestamp) does not verify gets 401, and the
 * service retries anything but 2xx.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=8787 node --import tsx examples/webhook-receiver.ts
 *
 * The secret is the one `POST /external/v1/webhooks` (or `createWebhook`) answered, shown once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** What a verified request carries: its `webhook-id` (stable across retries) and its JSON body. */
export interface WebhookEvent {
  id: string;
  body: unknown;
}

/** Larger bodies are refused (413): a webhook with a long transcript stays well below. */
const maxBodyBytes = 16 * 1024 * 1024;

const signatureHeaders = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** A node:http server that calls `onEvent` once per verified request (retries repeat the id). */
export function webhookReceiver(secret: string, onEvent: (event: WebhookEvent) => void): Server {
  const verifier = new Webhook(secret);
  return createServer(async (req, res) => {
    if (req.method !== 'POST') return answer(res, 405, 'POST only', { allow: 'POST' });
    const headers: Record<string, string> = {};
    for (const name of signatureHeaders) {
      const value = req.headers[name];
      if (typeof value !== 'string') return answer(res, 400, `missing ${name} header`);
      headers[name] = value;
    }
    const body = await readBody(req);
    if (body === null) return answer(res, 413, 'body too large');
    let event: unknown;
    try {
      // Verifies the HMAC over id, timestamp and the exact bytes, and that the timestamp is within
      // 5 minutes (an old request replayed fails); then parses the JSON.
      event = verifier.verify(body, headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return answer(res, 401, error.message);
      return answer(res, 400, 'the body is not JSON'); // signed, yet JSON.parse threw
    }
    onEvent({ id: headers['webhook-id']!, body: event });
    answer(res, 204);
  });
}

function answer(res: ServerResponse, status: number, error?: string, headers: Record<string, string> = {}) {
  if (error === undefined) return void res.writeHead(status, headers).end();
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}

/** The whole body, or null once it exceeds maxBodyBytes. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

// Run as a program (not when a test imports it).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret?.startsWith('whsec_')) {
    console.error('set WEBHOOK_SECRET to the whsec_... secret the webhook was created with');
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 8787);
  const server = webhookReceiver(secret, ({ id, body }) => {
    const meeting = body as { recording_id?: number; title?: string };
    console.log(
      `verified ${id}: recording ${meeting.recording_id} "${meeting.title}"\n${JSON.stringify(body, null, 2)}`,
    );
  });
  server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/webhook`));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close());
}
