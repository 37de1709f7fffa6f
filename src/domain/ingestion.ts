/**
 * Ingestion of one recording in the recording format (recording-format.ts). `npm run ingest` and
 * the ingestRecording mutation both come here; the seeder stores its meetings through the same
 * `storeRecording`.
 */
import type { Collections } from '../db/collections.js';
import { parseRecording } from './recording-format.js';
import { type StoredRecording, type StoreOptions, storeRecording } from './recordings.js';

/** Validates and stores one recording; unknown recorders, teams and meeting types are BAD_USER_INPUT. */
export function ingestRecording(
  collections: Collections,
  input: unknown,
  options?: StoreOptions,
): Promise<StoredRecording> {
  return storeRecording(collections, parseRecording(input), options);
}
