/**
 * A process-local hint that the outbox has a message due now, so a delivery worker in this process
 * starts on it at once instead of at its next poll. Workers in other processes find the message by
 * polling (DELIVERY_POLL_MS); the outbox in MongoDB stays the only source of truth.
 */
import { EventEmitter } from 'node:events';

const signal = new EventEmitter().setMaxListeners(0);

export function outboxHasWork(): void {
  signal.emit('work');
}

/** Calls `listener` on every hint; returns the unsubscribe function. */
export function onOutboxWork(listener: () => void): () => void {
  signal.on('work', listener);
  return () => signal.off('work', listener);
}
