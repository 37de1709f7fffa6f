/**
 * Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the
 * base64-decoded part of the secret after `whsec_`. Several secrets (during a rotation) give a
 * space-separated list, which receivers using `standardwebhooks` or `svix` accept unmodified.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,...` signature of the message. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`);
  return `v1,${mac.digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every given secret. */
export function webhookHeaders(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
  };
  if (secrets.length > 0)
    headers['webhook-signature'] = secrets.map((s) => sign(s, messageId, timestampSeconds, body)).join(' ');
  return headers;
}
