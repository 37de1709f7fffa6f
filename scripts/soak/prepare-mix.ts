/**
 * The soak's mix made ready: built from what the dataset gives (the recordings the account admin
 * sees, a meeting's node id), then driven once through (drive-mix.ts, preflight) so that a wrong
 * expectation shows before the load.
 */
import { benchAdmin } from '../../bench/dataset.js';
import { graphql } from '../../bench/fanout.js';
import { preflight } from './drive-mix.js';
import { type MixEntry, requestMix } from './request-mix.js';
import type { Tally } from './tally.js';

export async function prepareMix(url: string, tally: Tally): Promise<MixEntry[]> {
  const first = await graphql(
    url,
    { 'x-api-key': benchAdmin.apiKey },
    '{ meetings(first: 1) { edges { node { id } } } }',
  );
  const meetingNodeId = first.data?.meetings?.edges?.[0]?.node?.id as string | undefined;
  if (!meetingNodeId)
    throw new Error(`no meeting to ask node() for: ${JSON.stringify(first.errors ?? first)}`);
  const mix = requestMix(await visibleRecordings(url), meetingNodeId);
  await preflight(url, mix, tally);
  return mix;
}

/** The recording ids the admin may see (seeded meetings shared only with individuals are not among them). */
async function visibleRecordings(url: string): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await fetch(
      `${url}/external/v1/meetings?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { headers: { 'x-api-key': benchAdmin.apiKey } },
    );
    if (res.status !== 200) throw new Error(`listing meetings answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { next_cursor: string | null; items: { recording_id: number }[] };
    ids.push(...page.items.map((m) => m.recording_id));
    cursor = page.next_cursor;
  } while (cursor);
  if (ids.length === 0) throw new Error('the admin sees no meeting');
  return ids;
}
