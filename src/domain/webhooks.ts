/**
 * Webhooks a viewer registers: creation (the signing secret is shown once), listing and deletion.
 * A webhook belongs to its creator; anyone else's is indistinguishable from one that does not exist.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { TriggeredFor, WebhookDoc } from '../db/documents.js';
import { DomainError } from './errors.js';
import { requireDestinationUrl } from './urls.js';
import type { Viewer } from './viewer.js';

export interface WebhookInput {
  destinationUrl: string;
  triggeredFor: TriggeredFor[];
  includeTranscript: boolean;
  includeCrmMatches: boolean;
  includeSummary: boolean;
  includeActionItems: boolean;
}

/** Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function createWebhook(
  collections: Collections,
  viewer: Viewer,
  input: WebhookInput,
): Promise<WebhookDoc> {
  const url = requireDestinationUrl(input.destinationUrl, 'destination_url');
  if (input.triggeredFor.length === 0)
    throw new DomainError('BAD_USER_INPUT', 'triggered_for needs at least one value.');
  if (
    !(input.includeTranscript || input.includeCrmMatches || input.includeSummary || input.includeActionItems)
  ) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'At least one of include_transcript, include_crm_matches, include_summary and include_action_items must be true.',
    );
  }
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
  };
  await collections.webhooks.insertOne(webhook);
  return webhook;
}

export function listWebhooks(collections: Collections, viewer: Viewer): Promise<WebhookDoc[]> {
  return collections.webhooks.find({ ownerId: viewer.user._id }).sort({ createdAt: -1 }).toArray();
}

export async function deleteWebhook(collections: Collections, viewer: Viewer, id: string): Promise<void> {
  const notFound = new DomainError('NOT_FOUND', `No webhook with id ${id}.`);
  if (!ObjectId.isValid(id) || !/^[0-9a-f]{24}$/i.test(id)) throw notFound;
  const { deletedCount } = await collections.webhooks.deleteOne({
    _id: new ObjectId(id),
    ownerId: viewer.user._id,
  });
  if (deletedCount === 0) throw notFound;
}
