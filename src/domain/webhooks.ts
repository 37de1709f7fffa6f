/**
 * Webhooks a viewer registers: creation (the signing secret is shown once), listing, deletion,
 * secret rotation, re-enabling, and the events of each webhook (its outbox messages; GraphQL calls
 * them its deliveries) with their redelivery.
 * A webhook belongs to its creator; anyone else's is indistinguishable from one that does not exist.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc, TriggeredFor, WebhookDoc, WebhookEventType } from '../db/documents.js';
import { checkedDestination, type DestinationCheck } from './deliveries.js';
import { DomainError } from './errors.js';
import {
  cancelWebhookEvents,
  type OutboxHint,
  redeliverFailedWebhookEvents,
  redeliverWebhookEvent,
} from './outbox.js';
import { findPage, Keyset, type Page, type PageRequest } from './pagination.js';
import type { Viewer } from './viewer.js';

export interface WebhookInput {
  destinationUrl: string;
  triggeredFor: TriggeredFor[];
  includeTranscript: boolean;
  includeCrmMatches: boolean;
  includeSummary: boolean;
  includeActionItems: boolean;
  /** What it is sent; content ready alone when left out (webhooks made through REST). */
  events?: WebhookEventType[];
}

/** After a rotation the former secret keeps signing (besides the new one) this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3600_000;

/** Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets that sign a message at `now`: the current one first, then the former one within its 24 hours. */
export function signingSecrets(webhook: WebhookDoc, now: Date): string[] {
  const previous = webhook.previousSecret;
  return previous && previous.expiresAt > now ? [webhook.secret, previous.secret] : [webhook.secret];
}

export async function createWebhook(
  collections: Collections,
  viewer: Viewer,
  input: WebhookInput,
  check: DestinationCheck,
): Promise<WebhookDoc> {
  if (input.triggeredFor.length === 0)
    throw new DomainError('BAD_USER_INPUT', 'triggered_for needs at least one value.');
  const events = [...new Set<WebhookEventType>(input.events ?? ['content_ready'])];
  if (events.length === 0) throw new DomainError('BAD_USER_INPUT', 'events needs at least one value.');
  if (
    !(input.includeTranscript || input.includeCrmMatches || input.includeSummary || input.includeActionItems)
  ) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'At least one of include_transcript, include_crm_matches, include_summary and include_action_items must be true.',
    );
  }
  const url = await checkedDestination(input.destinationUrl, 'destination_url', check);
  const webhook: WebhookDoc = {
    _id: new ObjectId(),
    ownerId: viewer.user._id,
    url,
    secret: newWebhookSecret(),
    createdAt: new Date(),
    includeTranscript: input.includeTranscript,
    includeCrmMatches: input.includeCrmMatches,
    includeSummary: input.includeSummary,
    includeActionItems: input.includeActionItems,
    triggeredFor: [...new Set(input.triggeredFor)],
    ownerEmail: viewer.user.email,
    ownerOrgId: viewer.user.orgId,
    previousSecret: null,
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    events,
  };
  await collections.webhooks.insertOne(webhook);
  return webhook;
}

export function listWebhooks(collections: Collections, viewer: Viewer): Promise<WebhookDoc[]> {
  return collections.webhooks.find({ ownerId: viewer.user._id }).sort({ createdAt: -1 }).toArray();
}

const notFound = (id: string) => new DomainError('NOT_FOUND', `No webhook with id ${id}.`);

/** A webhook id names no webhook unless it is 24 hex digits. */
function parsedWebhookId(id: string): ObjectId | null {
  return /^[0-9a-f]{24}$/i.test(id) ? new ObjectId(id) : null;
}

function webhookObjectId(id: string): ObjectId {
  const _id = parsedWebhookId(id);
  if (!_id) throw notFound(id);
  return _id;
}

/** The viewer's webhook `id`; null for an unknown id and for anyone else's. */
export async function ownWebhook(
  collections: Collections,
  viewer: Viewer,
  id: string,
): Promise<WebhookDoc | null> {
  const _id = parsedWebhookId(id);
  return _id && collections.webhooks.findOne({ _id, ownerId: viewer.user._id });
}

/** The viewer's webhook `id`; NOT_FOUND for an unknown id and for anyone else's. */
export async function findOwnWebhook(
  collections: Collections,
  viewer: Viewer,
  id: string,
): Promise<WebhookDoc> {
  const webhook = await ownWebhook(collections, viewer, id);
  if (!webhook) throw notFound(id);
  return webhook;
}

export async function deleteWebhook(collections: Collections, viewer: Viewer, id: string): Promise<void> {
  const _id = webhookObjectId(id);
  const { deletedCount } = await collections.webhooks.deleteOne({ _id, ownerId: viewer.user._id });
  if (deletedCount === 0) throw notFound(id);
  await cancelWebhookEvents(collections, _id, 'the webhook was deleted', new Date());
}

/** A new signing secret; the former one keeps signing too for 24 hours, so receivers can switch over. */
export async function rotateWebhookSecret(
  collections: Collections,
  viewer: Viewer,
  id: string,
  now: Date = new Date(),
): Promise<{ webhook: WebhookDoc; secret: string; previousSecretExpiresAt: Date }> {
  const current = await findOwnWebhook(collections, viewer, id);
  const secret = newWebhookSecret();
  const previousSecret = {
    secret: current.secret,
    expiresAt: new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
  };
  const webhook = await collections.webhooks.findOneAndUpdate(
    { _id: current._id, ownerId: viewer.user._id, secret: current.secret },
    { $set: { secret, previousSecret } },
    { returnDocument: 'after' },
  );
  if (!webhook) throw new DomainError('BAD_USER_INPUT', 'The secret was rotated meanwhile: try again.');
  return { webhook, secret, previousSecretExpiresAt: previousSecret.expiresAt };
}

/** Re-enables a webhook disabled after a 410 or 5 days of failures. Failed events stay failed: redeliver them. */
export async function enableWebhook(
  collections: Collections,
  viewer: Viewer,
  id: string,
): Promise<WebhookDoc> {
  const webhook = await collections.webhooks.findOneAndUpdate(
    { _id: webhookObjectId(id), ownerId: viewer.user._id },
    { $set: { disabledAt: null, disabledReason: null, failingSince: null } },
    { returnDocument: 'after' },
  );
  if (!webhook) throw notFound(id);
  return webhook;
}

/**
 * The webhook's events, newest first. The list is that webhook's: a cursor of another webhook's
 * events is not one of its cursors, and it serves its first page (see Keyset).
 */
export function listWebhookEvents(
  collections: Collections,
  webhook: WebhookDoc,
  request: PageRequest,
): Promise<Page<OutboxDoc>> {
  const keyset = new Keyset(
    'webhookDeliveries',
    [
      ['createdAt', -1, 'date'],
      ['_id', -1, 'id'],
    ],
    {},
    webhook._id.toHexString(),
  );
  return findPage(collections.outbox, keyset, { webhookId: webhook._id }, request);
}

function requireEnabled(webhook: WebhookDoc): void {
  if (webhook.disabledAt) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `The webhook is disabled (${webhook.disabledReason ?? 'no reason recorded'}): enable it first.`,
    );
  }
}

/**
 * Sends one event again (same webhook-id), whatever became of it, unless it is still pending;
 * said on `hint`.
 */
export async function redeliverEvent(
  collections: Collections,
  viewer: Viewer,
  webhookId: string,
  messageId: string,
  hint: OutboxHint,
  now: Date = new Date(),
): Promise<OutboxDoc> {
  const webhook = await findOwnWebhook(collections, viewer, webhookId);
  requireEnabled(webhook);
  const message = await redeliverWebhookEvent(collections, webhook._id, messageId, now, hint);
  if (message) return message;
  const exists = await collections.outbox.findOne({ webhookId: webhook._id, messageId });
  if (!exists) throw new DomainError('NOT_FOUND', `No event ${messageId} for this webhook.`);
  throw new DomainError(
    'BAD_USER_INPUT',
    `Event ${messageId} is still pending; its next attempt is due at ${exists.nextAttemptAt.toISOString()}.`,
  );
}

/**
 * Sends again every failed event of the webhook created at or after `since` (said on `hint`);
 * returns how many.
 */
export async function redeliverFailedEvents(
  collections: Collections,
  viewer: Viewer,
  webhookId: string,
  since: Date,
  hint: OutboxHint,
  now: Date = new Date(),
): Promise<number> {
  const webhook = await findOwnWebhook(collections, viewer, webhookId);
  requireEnabled(webhook);
  return redeliverFailedWebhookEvents(collections, webhook._id, since, now, hint);
}
