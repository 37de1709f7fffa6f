/**
 * Content ready (docs/api/access.md): when a meeting is first stored with its summary, every webhook whose
 * owner may see it and whose `triggered_for` names the meeting's category for that owner gets one
 * event in the outbox.
 *
 * Durable without transactions: `storeRecordings` sets `contentReadyAt` and `eventsPending` in one
 * write, then fans out here — the outbox keys events by (webhook, recording), so a second event is
 * impossible — and only then clears `eventsPending`. A process that dies in
 * between leaves the mark behind, and any worker's sweep repeats the fan-out; repeating it creates
 * nothing twice. Before that, the intent to write a summary (`summaryPending`) covers a process
 * dying between the summary write and the ready mark.
 */
import type { ClientBulkWriteModel, ClientBulkWriteResult } from 'mongodb';
import { type Collections, namespaceOf } from '../db/collections.js';
import type {
  AudienceDoc,
  MeetingDoc,
  OrganisationDoc,
  TriggeredFor,
  UserDoc,
  WebhookDoc,
  WebhookEventType,
} from '../db/documents.js';
import { type OutboxHint, queueWebhookEvents } from './outbox.js';
import { ReferenceCache } from './reference-cache.js';
import { isSharedWithAnyTeam } from './sharing.js';
import type { Viewer } from './viewer.js';
import { canSee } from './visibility.js';

/** A user as the viewer of rules that depend on who they are (not on how they authenticated). */
export function viewerFor(user: UserDoc, org: OrganisationDoc): Viewer {
  return { user, org, via: 'api_key', credentialId: user._id };
}

/**
 * The category of `meeting` for the webhook owner (docs/api/access.md), or null when the owner
 * may not see it or no category covers it on the owner's plan.
 */
export function categoryFor(owner: Viewer, meeting: AudienceDoc): TriggeredFor | null {
  if (!canSee(owner, meeting)) return null;
  const teamPlan = owner.org.plan === 'team';
  if (meeting.recorderId.equals(owner.user._id)) {
    return teamPlan && isSharedWithAnyTeam(meeting) ? 'my_shared_with_team_recordings' : 'my_recordings';
  }
  const sharedWithOwner = meeting.sharedWithEmails.includes(owner.user.email);
  // Individual plans have no team categories: another user's meeting counts when shared individually.
  if (!teamPlan) return sharedWithOwner ? 'shared_external_recordings' : null;
  if (meeting.orgId.equals(owner.org._id)) return 'shared_team_recordings';
  // Recorded in another organisation: only an individual share lets the owner see it.
  return 'shared_external_recordings';
}

/** The owners whose webhooks might fire for a meeting: its recorder, its individual shares, its organisation's users. */
function candidateOwners(meeting: AudienceDoc): object[] {
  const owners: object[] = [{ ownerId: meeting.recorderId }];
  if (meeting.sharedWithEmails.length > 0) owners.push({ ownerEmail: { $in: meeting.sharedWithEmails } });
  if (isSharedWithAnyTeam(meeting)) owners.push({ ownerOrgId: meeting.orgId });
  return owners;
}

/** Whether `webhook` is among `meeting`'s candidates (candidateOwners, as a predicate). */
export function isCandidate(webhook: WebhookDoc, meeting: AudienceDoc): boolean {
  return (
    webhook.ownerId.equals(meeting.recorderId) ||
    meeting.sharedWithEmails.includes(webhook.ownerEmail) ||
    (isSharedWithAnyTeam(meeting) && webhook.ownerOrgId.equals(meeting.orgId))
  );
}

/** An enabled webhook whose owner is active, with the owner as the viewer of its rules. */
export interface Candidate {
  webhook: WebhookDoc;
  owner: Viewer;
}

/**
 * The enabled webhooks of active owners who might see any of `meetings` (the union of their
 * candidates): one query, owners and their organisations from `references` (ingestion's, kept a
 * second; read every time by default). Each meeting then takes its own (isCandidate).
 */
export async function candidateWebhooks(
  collections: Collections,
  meetings: readonly AudienceDoc[],
  references = new ReferenceCache(collections, 0),
): Promise<Candidate[]> {
  if (meetings.length === 0) return [];
  const webhooks = await collections.webhooks
    .find({ $or: meetings.flatMap(candidateOwners), disabledAt: null })
    .toArray();
  if (webhooks.length === 0) return [];
  const ownerIds = new Map(webhooks.map((w) => [w.ownerId.toHexString(), w.ownerId]));
  const owners = (await references.users([...ownerIds.values()])).filter((u) => u.status === 'active');
  const orgIds = new Map(owners.map((u) => [u.orgId.toHexString(), u.orgId]));
  const orgs = new Map(
    await Promise.all(
      [...orgIds].map(async ([hex, id]) => [hex, await references.organisation(id)] as const),
    ),
  );
  const viewers = new Map<string, Viewer>();
  for (const user of owners) {
    const org = orgs.get(user.orgId.toHexString());
    if (org) viewers.set(user._id.toHexString(), viewerFor(user, org));
  }
  return webhooks.flatMap((webhook) => {
    const owner = viewers.get(webhook.ownerId.toHexString());
    return owner ? [{ webhook, owner }] : [];
  });
}

/** What a webhook is sent: content ready alone unless it chose (webhooks made before it could). */
export function eventsOf(webhook: WebhookDoc): WebhookEventType[] {
  return webhook.events ?? ['content_ready'];
}

/**
 * The webhooks that get an event for each of `meetings` once it is ready: each candidate sent
 * content ready whose owner may see it and whose `triggered_for` names its category for them.
 */
export async function recipientsOf(
  collections: Collections,
  meetings: readonly MeetingDoc[],
  references = new ReferenceCache(collections, 0),
): Promise<WebhookDoc[][]> {
  const candidates = (await candidateWebhooks(collections, meetings, references)).filter(({ webhook }) =>
    eventsOf(webhook).includes('content_ready'),
  );
  return meetings.map((meeting) =>
    candidates
      .filter(({ webhook, owner }) => {
        if (!isCandidate(webhook, meeting)) return false;
        const category = categoryFor(owner, meeting);
        return category !== null && webhook.triggeredFor.includes(category);
      })
      .map(({ webhook }) => webhook),
  );
}

/**
 * Queues the webhook events of ready meetings (idempotently, in one bulk write) and clears their
 * `eventsPending` marks. `recipients`: theirs when the caller already looks them up (ingestion
 * reads them while it writes the content), read here otherwise. `hint`: the app's, told of the
 * events (none: workers find them by polling). Returns how many events this call created for each.
 */
export async function fanOutContentReady(
  collections: Collections,
  meetings: readonly MeetingDoc[],
  now: Date,
  { recipients, hint }: { recipients?: Promise<WebhookDoc[][]>; hint?: OutboxHint } = {},
): Promise<number[]> {
  if (meetings.length === 0) return [];
  const matching = await (recipients ?? recipientsOf(collections, meetings));
  const created = await queueWebhookEvents(
    collections,
    meetings.map((meeting, i) => ({
      recordingId: meeting.recordingId,
      webhooks: meeting.contentReadyAt ? matching[i]! : [],
    })),
    now,
    hint,
  );
  await collections.meetings.updateMany(
    { recordingId: { $in: meetings.map((m) => m.recordingId) }, eventsPending: true },
    { $set: { eventsPending: false } },
  );
  return created;
}

/** The intent to write a summary, dropped: the summary is written. */
const intentDropped = { $unset: { summaryPending: '', summaryPendingSince: '' } } as const;

/** The ready mark: made once (its filter), with the fan-out marked pending and the intent dropped. */
const readyMark = (now: Date) =>
  ({ $set: { contentReadyAt: now, eventsPending: true }, ...intentDropped }) as const;

/** Those of `recordingIds` whose summary is still pending: where a ready mark did not drop it. */
const stillPending = (recordingIds: readonly number[]) =>
  ({ recordingId: { $in: [...recordingIds] }, summaryPending: true }) as const;

/**
 * Content is ready once a summary is stored; the conditional update makes that happen once. The
 * same write marks the fan-out pending, so the events exist even if this process dies right after.
 * `unready`: those of `recordingIds` read as not ready a moment ago (all, unless known). Returns
 * those this call made ready; either way their summaries are no longer pending.
 *
 * When another writer marks some of them between the read and this write (two ingestions of the
 * same recording at once), those marked at this call's `now` are taken as this call's: the same
 * millisecond would count one for both, and the outbox still makes its events once.
 */
export async function markReady(
  collections: Collections,
  recordingIds: readonly number[],
  now: Date,
  unready: readonly number[] = recordingIds,
): Promise<number[]> {
  let made: number[] = [];
  if (unready.length > 0) {
    const marked = await collections.meetings.updateMany(
      { recordingId: { $in: [...unready] }, contentReadyAt: null },
      readyMark(now),
    );
    if (marked.modifiedCount === unready.length) made = [...unready];
    else if (marked.modifiedCount > 0) {
      const ours = await collections.meetings
        .find({ recordingId: { $in: [...unready] }, contentReadyAt: now }, { projection: { recordingId: 1 } })
        .toArray();
      made = ours.map((m) => m.recordingId);
    }
  }
  if (made.length < recordingIds.length)
    await collections.meetings.updateMany(stillPending(recordingIds), intentDropped);
  return made;
}

/**
 * markReady as models of one ordered write across collections (MongoDB 8.0), to follow the content
 * written in the same command: the mark of each of `unready`, one by one, whose own result tells
 * whether this call made it (no second read when another writer raced it); then the intent dropped
 * where a mark did not drop it. `made` reads the results, the marks starting at `offset`.
 */
export function readyMarkModels(
  collections: Collections,
  recordingIds: readonly number[],
  now: Date,
  unready: readonly number[],
): { models: ClientBulkWriteModel[]; made(result: ClientBulkWriteResult, offset: number): number[] } {
  const namespace = namespaceOf(collections.meetings);
  return {
    models: [
      ...unready.map((recordingId) => ({
        namespace,
        name: 'updateOne' as const,
        filter: { recordingId, contentReadyAt: null },
        update: readyMark(now),
      })),
      {
        namespace,
        name: 'updateMany',
        filter: stillPending(recordingIds),
        update: intentDropped,
      },
    ],
    made: (result, offset) =>
      unready.filter((_, i) => result.updateResults?.get(offset + i)?.modifiedCount === 1),
  };
}

/**
 * Finishes what a process that died left behind, for meetings older than `graceMs`: a summary
 * written without the ready mark (the mark is set, or the intent dropped when no summary was
 * written), then fan-outs left pending. Returns how many meetings it finished. The worker sweeping
 * claims right after: no hint.
 */
export async function finishPendingFanOuts(
  collections: Collections,
  now: Date,
  graceMs: number,
  limit = 100,
): Promise<number> {
  const cutoff = new Date(now.getTime() - graceMs);
  const interrupted = await collections.meetings
    .find({ summaryPending: true, summaryPendingSince: { $lte: cutoff } })
    .limit(limit)
    .toArray();
  for (const { recordingId } of interrupted) {
    const summary = await collections.summaries.findOne({ recordingId }, { projection: { _id: 1 } });
    if (!summary) {
      await collections.meetings.updateOne({ recordingId, summaryPending: true }, intentDropped);
    } else if ((await markReady(collections, [recordingId], now)).length > 0) {
      const meeting = await collections.meetings.findOne({ recordingId });
      if (meeting) await fanOutContentReady(collections, [meeting], now);
    }
  }
  const pending = await collections.meetings
    .find({ eventsPending: true, contentReadyAt: { $lte: cutoff } })
    .limit(limit)
    .toArray();
  await fanOutContentReady(collections, pending, now);
  return interrupted.length + pending.length;
}
