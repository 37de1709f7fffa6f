/**
 * What the service POSTs to other people's URLs, for the OpenAPI document: the "new meeting
 * content ready" webhook event (top-level `webhooks`) and the transcript and summary deliveries
 * of destination_url (`callbacks` of their routes). Bodies are src/delivery/payload.ts's, headers
 * src/delivery/signing.ts's, and the receiver's answers mean what src/domain/retry-schedule.ts and
 * src/domain/outbox.ts make of them.
 */

import { DISABLE_AFTER_FAILING_MS } from '../src/domain/outbox.js';
import { JITTER, RETRY_DELAYS_MS } from '../src/domain/retry-schedule.js';
import { PREVIOUS_SECRET_TTL_MS } from '../src/domain/webhooks.js';
import * as E from './examples.js';
import type { CallbackSpec, Examples } from './route.js';

const ref = (kind: 'schemas' | 'parameters', id: string) => ({ $ref: `#/components/${kind}/${id}` });

/** 5000 → "5 s", 7200000 → "2 h". */
function duration(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms / 1000} s`;
}

const retries =
  `retried after ${RETRY_DELAYS_MS.map(duration).join(', ')} (each ±${JITTER * 100}%), ` +
  `${RETRY_DELAYS_MS.length + 1} attempts in all; then it fails`;

/** The Standard Webhooks headers, as `components.parameters`. */
export const webhookHeaderParameters = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The message id, `msg_` and 24 base64url characters: the same on every retry of one message, so a ' +
      'receiver can ignore one it has already handled (delivery is at least once).',
    schema: { type: 'string' },
    example: E.webhookMessageId,
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was sent, in Unix seconds. Refuse a message whose timestamp is far from your ' +
      'clock (the standardwebhooks library allows 5 minutes) to stop replays.',
    schema: { type: 'string' },
    example: String(E.webhookTimestamp),
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` (the body as the raw ' +
      'bytes received), keyed with the base64-decoded part of the webhook secret after `whsec_`. During the ' +
      `${duration(PREVIOUS_SECRET_TTL_MS)} after a secret rotation, two signatures separated by a space: accept the message when ` +
      'one matches. The npm packages `standardwebhooks` and `svix` verify it unmodified.',
    schema: { type: 'string' },
    example: E.webhookSignature,
  },
};

/** The answers a receiver gives, and what the service does with each. */
function receiverResponses(disables: boolean) {
  return {
    '2XX': { description: 'Delivered: the message is not sent again. The answer body is ignored.' },
    410: {
      description: disables
        ? 'Gone: the webhook is disabled (no further events) and this event fails. The GraphQL mutation ' +
          'enableWebhook turns it back on.'
        : 'Gone: the delivery is given up.',
    },
    429: {
      description: `Retried no sooner than the Retry-After the answer gives (at most 24 h), otherwise ${retries}.`,
    },
    503: {
      description: `Retried no sooner than the Retry-After the answer gives (at most 24 h), otherwise ${retries}.`,
    },
    default: {
      description:
        'Any other status, a redirect (never followed), no answer in time (15 s, 5 s to connect, by default) ' +
        `or a network error: ${retries}.` +
        (disables
          ? ` A webhook whose deliveries have all failed for ${DISABLE_AFTER_FAILING_MS / 86_400_000} days ` +
            'is disabled. Failed events can be sent again (GraphQL redeliverWebhookEvent, ' +
            'redeliverFailedWebhookEvents).'
          : ''),
    },
  };
}

const jsonBody = (schema: unknown, examples: Examples) => ({
  required: true,
  content: { 'application/json': { schema, examples } },
});

/** The top-level `webhooks` of the document: the one event the service sends. */
export const webhooks = {
  newMeetingContentReady: {
    post: {
      operationId: 'newMeetingContentReady',
      summary: 'New meeting content ready',
      tags: ['Webhooks'],
      description:
        'POSTed to the url of each webhook (POST /webhooks) once per recording, when its content is ready ' +
        '(it has a summary), for recordings of its triggered_for categories that the webhook owner may ' +
        'see. Never sent again when the content changes later.\n\n' +
        'The body is the Meeting object, bare (no envelope), as GET /meetings shows it, with the parts ' +
        'the webhook include_* flags ask for (transcript, default_summary, action_items, crm_matches ' +
        "from the owner's CRM; never highlights). It is compact JSON, sent byte for byte the same on " +
        'every attempt: verify the signature over the bytes received, before parsing.',
      security: [],
      parameters: [
        ref('parameters', 'WebhookId'),
        ref('parameters', 'WebhookTimestamp'),
        ref('parameters', 'WebhookSignature'),
      ],
      requestBody: jsonBody(ref('schemas', 'Meeting'), E.webhookEvents),
      responses: receiverResponses(true),
    },
  },
};

/** The `callbacks` of a route that POSTs content to a URL its request gave. */
export function callbackOf(callback: CallbackSpec, schema: unknown) {
  return {
    [callback.name]: {
      [callback.url]: {
        post: {
          summary: callback.summary,
          description: callback.description,
          parameters: [ref('parameters', 'WebhookId'), ref('parameters', 'WebhookTimestamp')],
          requestBody: jsonBody(schema, callback.examples),
          responses: receiverResponses(false),
        },
      },
    },
  };
}
