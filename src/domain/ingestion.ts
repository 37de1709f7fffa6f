/**
 * Ingestion of one recording in the recording format (recording-format.ts). `npm run ingest` and
 * the ingestRecording mutation both come here; the seeder stores its meetings through the same
 * `storeRecording`.
 */
import type { Collections } from '../db/collections.js';
import type { Clock } from './clock.js';
import { parseRecording } from './recording-format.js';
import { type StoredRecording, storeRecording } from './recordings.js';

/** Validates and stores one recording; unknown recorders, teams and meeting types are BAD_USER_INPUT. */
export function ingestRecording(
  collections: Collections,
  input: unknown,
  clock?: Clock,
): Promise<StoredRecording> {
  return storeRecording(collections, parseRecording(input), clock);
}
