/**
 * Settling a batch: what its attempts (and the messages settled or handed back without one) come
 * to, recorded together.
 *
 * - In bulk: one write for every outcome (src/domain/outbox.ts's settleBatch), one insert for every
 *   attempt, then the recorded outcomes told (metrics) and applied to their webhooks (a 410 or a
 *   long run of failures disables one) in the order the answers came.
 * - Within the lease: an outcome whose lease ran out (another worker may hold the message now) is
 *   not recorded; its attempt is kept, marked so.
 */
import type { Collections } from '../db/collections.js';
import type { AttemptOutcome, OutboxDoc } from '../db/documents.js';
import { type Settlement, settleBatch, trackWebhook } from '../domain/outbox.js';
import type { Logger } from '../logger.js';
import type { Attempted } from './sender.js';

/** Told of every attempt whose outcome was recorded (metrics). */
export type AttemptListener = (message: OutboxDoc, outcome: AttemptOutcome, answeredAt: Date) => void;

export interface SettlerOptions {
  collections: Collections;
  logger: Logger;
  onAttempt: AttemptListener;
}

export class Settler {
  private readonly collections: Collections;
  private readonly logger: Logger;
  private readonly onAttempt: AttemptListener;

  constructor(options: SettlerOptions) {
    this.collections = options.collections;
    this.logger = options.logger;
    this.onAttempt = options.onAttempt;
  }

  /**
   * Records a batch: every outcome in one bulk write, every attempt in one insert (with whether
   * its outcome was recorded), then what the recorded outcomes do to their webhooks, in the order
   * the answers came.
   */
  async settle(settlements: Settlement[], attempted: Attempted[]): Promise<void> {
    const recorded = await settleBatch(this.collections, [
      ...settlements,
      ...attempted.map((a) => a.settlement),
    ]);
    if (attempted.length > 0)
      await this.collections.deliveryAttempts.insertMany(
        attempted.map((a) => ({ ...a.entry, recorded: recorded.has(a.entry._id.toHexString()) })),
        { ordered: false },
      );
    const byAnswer = (a: Attempted) =>
      'attempt' in a.settlement ? a.settlement.attempt.answeredAt.getTime() : 0;
    for (const { settlement, entry, webhook } of attempted.sort((a, b) => byAnswer(a) - byAnswer(b))) {
      if (!recorded.has(entry._id.toHexString())) {
        this.logger.warn({ messageId: entry.messageId }, 'lease ran out before the outcome: not recorded');
        continue;
      }
      if (!('attempt' in settlement)) continue;
      const { outcome, answeredAt } = settlement.attempt;
      this.onAttempt(settlement.message, outcome, answeredAt);
      if (!webhook) continue;
      const disabled = await trackWebhook(this.collections, webhook, outcome, answeredAt);
      if (disabled)
        this.logger.warn({ webhookId: webhook._id.toHexString(), reason: disabled }, 'webhook disabled');
    }
  }
}
