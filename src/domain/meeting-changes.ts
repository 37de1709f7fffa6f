/**
 * The change feed as one viewer sees it (GraphQL `meetingChanges`): the change log (change-log.ts)
 * from a cursor, keeping the changes of meetings of the viewer's organisation that the viewer
 * could see before or after the change (so one no longer shared with them shows as removed), in
 * the order they were logged. It follows the `meetings` list: what a mirror built from `meetings`
 * and kept by the feed holds is what `meetings` lists.
 *
 * A cursor is a position in the log, made for one viewer. Reading from it costs one command (and
 * one more for a gap left by a writer that died), however long the log: a page reads at most
 * `SCAN_LIMIT` positions, and ends where it stopped reading even when few were the viewer's.
 */
import { createHash } from 'node:crypto';
import type { Collections } from '../db/collections.js';
import { type ChangeEntry, logStart, readLog, settledPosition } from './change-log.js';
import { DomainError } from './errors.js';
import { invalidCursorMessage, MAX_PAGE_SIZE, pageSize } from './pagination.js';
import type { Viewer } from './viewer.js';
import { canSee } from './visibility.js';

/** Changes a page holds by default: as many as any list's page may (MAX_PAGE_SIZE). */
const DEFAULT_CHANGES_PAGE = MAX_PAGE_SIZE;

/** Positions one page reads at most, whatever it finds among them. */
export const SCAN_LIMIT = 1000;

export interface ViewedChange {
  entry: ChangeEntry;
  cursor: string;
}

export interface ChangesPage {
  changes: ViewedChange[];
  /** Where the next page starts: after the last change read, even when it was not the viewer's. */
  endCursor: string;
  /** Whether more may be there now; when false, ask again later from endCursor. */
  hasNextPage: boolean;
}

const LIST = 'meetingChanges';

const viewerPrint = (viewer: Viewer) =>
  createHash('sha256').update(viewer.user._id.toHexString()).digest('base64url').slice(0, 12);

function cursorAt(viewer: Viewer, position: number): string {
  return Buffer.from(JSON.stringify({ l: LIST, v: viewerPrint(viewer), p: position })).toString('base64url');
}

/** What to do when a cursor cannot be followed: start over. */
const resyncAdvice =
  'Resync: take meetingChangesCursor, list every meeting (meetings), then follow meetingChanges from that cursor.';

/** The position `cursor` names, refusing one made for another list or viewer. */
function positionOf(viewer: Viewer, cursor: string): number {
  let body: { l?: unknown; v?: unknown; p?: unknown };
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new DomainError('BAD_USER_INPUT', invalidCursorMessage);
  }
  if (!body || typeof body !== 'object' || body.l !== LIST)
    throw new DomainError(
      'BAD_USER_INPUT',
      'The cursor is not one of meetingChanges: pass the endCursor of a page of meetingChanges, or meetingChangesCursor.',
    );
  if (body.v !== viewerPrint(viewer))
    throw new DomainError(
      'BAD_USER_INPUT',
      "The cursor was made for another user's change feed: each user follows their own, from their own meetingChangesCursor.",
    );
  if (typeof body.p !== 'number' || !Number.isSafeInteger(body.p) || body.p < 0)
    throw new DomainError('BAD_USER_INPUT', invalidCursorMessage);
  return body.p;
}

/** Whether the viewer could see the meeting before or after the change (their organisation's only). */
export function concerns(viewer: Viewer, entry: ChangeEntry): boolean {
  if (!entry.orgId.equals(viewer.org._id)) return false;
  return (
    (entry.before !== null && canSee(viewer, entry.before)) ||
    (entry.after !== null && canSee(viewer, entry.after))
  );
}

/** The cursor of the feed as it stands: every change logged from now on comes after it. */
export async function currentChangesCursor(
  collections: Collections,
  viewer: Viewer,
  now: Date,
): Promise<string> {
  return cursorAt(viewer, (await settledPosition(collections, now)).position);
}

/**
 * The viewer's changes after `after` (from the oldest kept without one), `first` at most.
 * RESYNC_REQUIRED when retention removed changes after the cursor.
 */
export async function meetingChanges(
  collections: Collections,
  viewer: Viewer,
  request: { first?: number | null; after?: string | null },
  now: Date,
): Promise<ChangesPage> {
  const first = pageSize(request.first ?? DEFAULT_CHANGES_PAGE);
  const asked = request.after == null ? undefined : positionOf(viewer, request.after);
  const expired = (start: number) => {
    if (asked !== undefined && asked < start - 1)
      throw new DomainError(
        'RESYNC_REQUIRED',
        `The cursor is older than the changes the feed keeps (retention): some changes after it are gone. ${resyncAdvice}`,
      );
  };
  const start = await logStart(collections);
  expired(start);
  const from = asked ?? start - 1;
  const read = await readLog(collections, from, SCAN_LIMIT, now);
  // Read again after the entries: a trim that ran meanwhile removed some after the cursor.
  expired(await logStart(collections));
  const changes: ViewedChange[] = [];
  for (const entry of read.entries) {
    if (!concerns(viewer, entry)) continue;
    changes.push({ entry, cursor: cursorAt(viewer, entry._id) });
    if (changes.length === first) {
      const rest = read.entries.some((e) => e._id > entry._id) || read.end > entry._id || read.more;
      return { changes, endCursor: changes.at(-1)!.cursor, hasNextPage: rest };
    }
  }
  return { changes, endCursor: cursorAt(viewer, read.end), hasNextPage: read.more };
}
