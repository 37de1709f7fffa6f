/**
 * Preparing a claimed batch: each message becomes a send (where it goes, signed with what, its
 * body), or is settled without one (its webhook deleted or disabled, its owner gone or no longer
 * allowed to see the recording), or is left leased when preparing it failed.
 *
 * - Together: one read of the batch's webhooks; owners, meetings and content through loaders shared
 *   for a second (viewer-cache.ts), and every body built in the same turn, so that each kind of
 *   content is read once for the whole batch rather than once per recording.
 * - The body is built once (payload.ts), stored before the first attempt, and sent byte for byte
 *   by every attempt after it.
 */
import type { Collections } from '../db/collections.js';
import type { OutboxDoc, OutboxStatus, WebhookDoc } from '../db/documents.js';
import type { OutageBackoff } from '../db/outage.js';
import type { Clock } from '../domain/clock.js';
import { type Settlement, storeBodies } from '../domain/outbox.js';
import { signingSecrets } from '../domain/webhooks.js';
import type { Logger } from '../logger.js';
import type { Payloads } from './payload.js';
import type { ViewerCache } from './viewer-cache.js';

/** Where a message goes, signed with what; or why nothing may be sent any more. */
type Target =
  | { send: true; url: string; secrets: string[]; webhook: WebhookDoc | null }
  | { send: false; status: Extract<OutboxStatus, 'failed' | 'cancelled'>; reason: string };

/** A claimed message about to be sent. */
export interface Send {
  message: OutboxDoc;
  url: string;
  secrets: string[];
  body: string;
  webhook: WebhookDoc | null;
}

export interface PreparerOptions {
  collections: Collections;
  logger: Logger;
  clock: Clock;
  /** The worker's: a failure that is an outage is its to report, not logged per message. */
  outage: OutageBackoff;
  /** Whom messages are sent as. */
  viewers: ViewerCache;
  /** What bodies are built with. */
  payloads: Payloads;
}

export class Preparer {
  private readonly collections: Collections;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly outage: OutageBackoff;
  private readonly viewers: ViewerCache;
  private readonly payloads: Payloads;

  constructor(options: PreparerOptions) {
    this.collections = options.collections;
    this.logger = options.logger;
    this.clock = options.clock;
    this.outage = options.outage;
    this.viewers = options.viewers;
    this.payloads = options.payloads;
  }

  /**
   * Each message of a batch as a send, or settled without one; null when preparing it failed (it
   * stays leased and is tried again when the lease runs out). Bodies built now are stored before
   * anything is sent.
   */
  async prepare(batch: OutboxDoc[]): Promise<(Send | Settlement | null)[]> {
    const now = this.clock.now();
    const webhooks = await this.webhooksOf(batch);
    const targets = await Promise.all(
      batch.map((message) => this.guarded(message, () => this.target(message, webhooks, now))),
    );
    // Every body is built in the same turn, so that the loaders read each kind of content once for
    // the whole batch rather than once per recording.
    const prepared = await Promise.all(
      batch.map(async (message, i): Promise<Send | Settlement | null> => {
        const target = targets[i];
        if (!target) return null;
        if (!target.send) {
          this.logger.info(
            { messageId: message.messageId, reason: target.reason },
            `message ${target.status}`,
          );
          return { message, unsent: target.status, reason: target.reason, at: now };
        }
        const body =
          message.body ?? (await this.guarded(message, () => this.buildBody(message, target.webhook)));
        if (body === undefined) return null;
        if (body === null)
          return {
            message,
            unsent: 'cancelled',
            reason: 'its owner may no longer see the recording',
            at: now,
          };
        return { message, url: target.url, secrets: target.secrets, body, webhook: target.webhook };
      }),
    );
    await storeBodies(
      this.collections,
      prepared.filter((p): p is Send => p !== null && 'body' in p && p.message.body === null),
    );
    return prepared;
  }

  /** `work` for one message; undefined when it failed (logged): the message stays leased and is tried again when the lease runs out. */
  private async guarded<T>(message: OutboxDoc, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!this.outage.failed(error))
        this.logger.error({ err: error, messageId: message.messageId }, 'delivery failed unexpectedly');
      return undefined;
    }
  }

  /** The webhooks of a batch's events, by id (one read). */
  private async webhooksOf(batch: OutboxDoc[]): Promise<Map<string, WebhookDoc>> {
    const ids = new Map(
      batch.flatMap((m) => (m.webhookId ? [[m.webhookId.toHexString(), m.webhookId]] : [])),
    );
    if (ids.size === 0) return new Map();
    const docs = await this.collections.webhooks.find({ _id: { $in: [...ids.values()] } }).toArray();
    return new Map(docs.map((w) => [w._id.toHexString(), w]));
  }

  /** Where it goes, signed with what; or why nothing may be sent any more. */
  private async target(message: OutboxDoc, webhooks: Map<string, WebhookDoc>, now: Date): Promise<Target> {
    let webhook: WebhookDoc | null = null;
    if (message.webhookId) {
      webhook = webhooks.get(message.webhookId.toHexString()) ?? null;
      if (!webhook) return { send: false, status: 'cancelled', reason: 'the webhook was deleted' };
      if (webhook.disabledAt)
        return {
          send: false,
          status: 'failed',
          reason: `the webhook is disabled (${webhook.disabledReason})`,
        };
    }
    const sender = await this.viewers.get(message.requestedBy);
    if (!sender) return { send: false, status: 'cancelled', reason: 'its owner is no longer an active user' };
    // The sender's meetings loader applies the visibility rules; a meeting.deleted event tells of a
    // meeting its owner no longer sees, and carries nothing of it.
    if (message.change?.type !== 'meeting.deleted') {
      const meeting = await sender.loaders.meetings.load(message.recordingId);
      if (!meeting)
        return { send: false, status: 'cancelled', reason: 'its owner may no longer see the recording' };
    }
    const secrets = webhook ? signingSecrets(webhook, now) : [];
    return { send: true, url: message.destinationUrl, secrets, webhook };
  }

  /** The body of a message's first attempt, as its sender sees the recording; null when they may not. */
  private async buildBody(message: OutboxDoc, webhook: WebhookDoc | null): Promise<string | null> {
    const sender = await this.viewers.get(message.requestedBy);
    if (!sender) return null;
    return this.payloads.build(message, sender.viewer, webhook, sender.loaders);
  }
}
