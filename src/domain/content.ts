/**
 * A meeting's content (transcript, summary, action items, highlights) lives in one collection per
 * kind, one document per recording: its fields (what queries and search read), and the same
 * content serialised as the public API shows it (`json`), written together. Readers of a page
 * fetch one kind for the whole page at once, keyed by recording id, and take the serialised form
 * only: REST answers and webhook bodies copy its bytes (RawJson), GraphQL parses it when a
 * selection asks for the content's fields. The rules of how content is shown (playback links,
 * highlight text) are here too, applied once, when the content is stored.
 */
import { createHash } from 'node:crypto';
import { Binary, type Collection, type Document } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type {
  ContentDocs,
  ContentKind,
  ContentOf,
  HighlightDoc,
  SpeakerDoc,
  TranscriptEntryDoc,
} from '../db/documents.js';
import { RawJson } from './raw-json.js';

/** The public API's shapes of content (docs/api/rest.md): what REST answers and webhook bodies carry. */
export interface TranscriptEntryJson {
  speaker: { display_name: string; matched_calendar_invitee_email: string | null };
  text: string;
  timestamp: string;
}
export interface SummaryJson {
  template_name: string;
  markdown_formatted: string;
}
export interface ActionItemJson {
  description: string;
  user_generated: boolean;
  completed: boolean;
  recording_timestamp: string;
  recording_playback_url: string;
  assignee: { name: string | null; email: string | null; team: string | null };
}
export interface HighlightJson {
  type: string;
  summary: string | null;
  start_time: number;
  end_time: number;
  /** Left out when the words only repeat the summary. */
  text?: string;
}

export interface ContentJson {
  transcripts: TranscriptEntryJson[];
  summaries: SummaryJson;
  actionItems: ActionItemJson[];
  highlights: HighlightJson[];
}

/** A kind's content as the public API shows it; action items link to moments of `meetingUrl`. */
/** A stored transcript line in the public API's JSON. */
export function transcriptEntryJsonOf(e: TranscriptEntryDoc): TranscriptEntryJson {
  return {
    speaker: {
      display_name: e.speaker.displayName,
      matched_calendar_invitee_email: e.speaker.matchedCalendarInviteeEmail,
    },
    text: e.text,
    timestamp: e.timestamp,
  };
}

export function contentJsonOf<K extends ContentKind>(
  kind: K,
  content: ContentOf<K>,
  meetingUrl: string,
): ContentJson[K] {
  const json: { [C in ContentKind]: (c: ContentOf<C>) => ContentJson[C] } = {
    transcripts: (c) => c.entries.map(transcriptEntryJsonOf),
    summaries: (c) => ({ template_name: c.templateName, markdown_formatted: c.markdownFormatted }),
    actionItems: (c) =>
      c.items.map((a) => ({
        description: a.description,
        user_generated: a.userGenerated,
        completed: a.completed,
        recording_timestamp: a.recordingTimestamp,
        recording_playback_url: playbackUrl(meetingUrl, a.recordingTimestamp),
        assignee: { name: a.assignee.name, email: a.assignee.email, team: a.assignee.team },
      })),
    highlights: (c) =>
      c.items.map((h) => {
        const text = highlightText(h);
        return {
          type: h.type,
          summary: h.summary,
          start_time: h.startTime,
          end_time: h.endTime,
          ...(text !== null ? { text } : {}),
        };
      }),
  };
  return json[kind](content);
}

/** Each speaker (name and matched invitee) once, in order of first words. */
function speakersOf(entries: readonly TranscriptEntryDoc[]): SpeakerDoc[] {
  const speakers = new Map<string, SpeakerDoc>();
  for (const { speaker } of entries) {
    const key = `${speaker.displayName}\u0000${speaker.matchedCalendarInviteeEmail}`;
    if (!speakers.has(key))
      speakers.set(key, {
        displayName: speaker.displayName,
        matchedCalendarInviteeEmail: speaker.matchedCalendarInviteeEmail,
      });
  }
  return [...speakers.values()];
}

/**
 * The version of serialised content: a digest of its bytes, so storing the same content again
 * changes nothing, and different content never shares a version.
 */
const versionOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 22);

/** What the serialised form adds to a transcript: its speakers (invitees are matched to them). */
type Extras = { speakers?: SpeakerDoc[] };

/** The document to store for a kind's content: its fields, and the same serialised (`json`). */
export function storedContentOf<K extends ContentKind>(
  kind: K,
  content: ContentOf<K>,
  meetingUrl: string,
): ContentOf<K> & { json: Binary; version: string } & Extras {
  const bytes = Buffer.from(JSON.stringify(contentJsonOf(kind, content, meetingUrl)));
  const extras: Extras =
    kind === 'transcripts' ? { speakers: speakersOf((content as ContentOf<'transcripts'>).entries) } : {};
  return { ...content, json: new Binary(bytes), version: versionOf(bytes), ...extras };
}

/** A recording's content of one kind, as its readers take it. */
export interface Serialised<K extends ContentKind = ContentKind> {
  /** The public API's JSON of it, as stored. */
  json: RawJson<ContentJson[K]>;
  /** Transcripts only. */
  speakers?: SpeakerDoc[];
}

interface ByRecording {
  recordingId: number;
}

/** The documents of `recordingIds`, in that order, null where there is none: one query for all. */
export async function contentByRecording<T extends ByRecording>(
  collection: Collection<T>,
  recordingIds: readonly number[],
  projection: Document = { _id: 0 },
): Promise<(T | null)[]> {
  const docs = (await collection
    .find({ recordingId: { $in: [...recordingIds] } } as never, { projection })
    .toArray()) as unknown as T[];
  const byId = new Map(docs.map((d) => [d.recordingId, d]));
  return recordingIds.map((id) => byId.get(id) ?? null);
}

/** A content document's own fields, without its serialised form (what the object path reads). */
export const contentFields = { _id: 0, json: 0, speakers: 0, version: 0 };

/**
 * The serialised content of `recordingIds` of one kind, null where there is none, with its
 * version (ContentCache keeps it by that): one query, plus
 * one for any document an older version of the service stored without `json` (built from its
 * fields then, with its meeting's URL for action items' links; not versioned, so never kept).
 */
export async function serialisedContent<K extends ContentKind>(
  collections: Collections,
  kind: K,
  recordingIds: readonly number[],
): Promise<((Serialised<K> & { version?: string }) | null)[]> {
  const collection = collections[kind] as unknown as Collection<ContentDocs[K]>;
  const stored = await contentByRecording(collection, recordingIds, {
    _id: 0,
    recordingId: 1,
    json: 1,
    speakers: 1,
    version: 1,
  });
  const older = recordingIds.filter((_, i) => stored[i] && !stored[i]!.json);
  const built = new Map<number, Serialised<K>>();
  if (older.length > 0) {
    const [docs, meetings] = await Promise.all([
      contentByRecording(collection, older, contentFields),
      kind === 'actionItems'
        ? collections.meetings
            .find({ recordingId: { $in: older } }, { projection: { recordingId: 1, url: 1 } })
            .toArray()
        : [],
    ]);
    docs.forEach((doc, i) => {
      if (!doc) return;
      const url = kind === 'actionItems' ? meetings.find((m) => m.recordingId === older[i])?.url : '';
      if (url === undefined) return; // its meeting is gone: nothing shows it
      const content = doc as unknown as ContentOf<K>;
      const speakers =
        kind === 'transcripts' ? speakersOf((content as ContentOf<'transcripts'>).entries) : undefined;
      built.set(older[i]!, {
        json: RawJson.of(contentJsonOf(kind, content, url)),
        ...(speakers ? { speakers } : {}),
      });
    });
  }
  return stored.map((doc, i) => {
    if (!doc) return null;
    if (!doc.json) return built.get(recordingIds[i]!) ?? null;
    const { speakers } = doc as Extras;
    return {
      json: new RawJson(doc.json.value()),
      ...(speakers ? { speakers } : {}),
      ...(doc.version ? { version: doc.version } : {}),
    };
  });
}

/** Seconds from the start of the recording of an `HH:MM:SS` position. */
export function secondsOf(hhmmss: string): number {
  return hhmmss.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

/** The meeting's URL at a moment of the recording: what an action item's playback link opens. */
export function playbackUrl(meetingUrl: string, hhmmss: string): string {
  const url = new URL(meetingUrl);
  url.searchParams.set('timestamp', String(secondsOf(hhmmss)));
  return url.toString();
}

/** A highlight's words, or null when they only repeat its summary (the public API leaves them out then). */
export function highlightText(highlight: Pick<HighlightDoc, 'text' | 'summary'>): string | null {
  return highlight.text === highlight.summary ? null : highlight.text;
}
