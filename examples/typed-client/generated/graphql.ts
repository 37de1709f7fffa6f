/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> =
  | T
  | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CalendarInviteesDomainsType = 'ONE_OR_MORE_EXTERNAL' | 'ONLY_INTERNAL';

/** Different fields combine with AND; the values of one list with OR. */
export type MeetingFilter = {
  /** Meetings any of these people attended: a calendar invitee, or a transcript speaker matched to one. Not in the REST API. */
  attendees?: Array<string> | null | undefined;
  /** The domain of the company the meeting is associated with. */
  companyDomains?: Array<string> | null | undefined;
  createdAfter?: string | null | undefined;
  createdBefore?: string | null | undefined;
  /** Omit for all. */
  domainsType?: CalendarInviteesDomainsType | null | undefined;
  /** A meeting type's name, matched exactly, whichever organisation the type is in (a meeting shared from another organisation has that organisation's types); an unknown name matches nothing. */
  meetingType?: string | null | undefined;
  /** Recorders. Meetings recorded outside your organisation are listed only when their recorder is named here. */
  recordedBy?: Array<string> | null | undefined;
  /** Meetings in which every word and "quoted phrase" occurs, in the title, summary, action items or transcript; -word or -"phrase" excludes. Words match by stem ("priced" finds "pricing"), case and accents aside; common words such as "the" are ignored. Each edge tells where it matched (matches). Not in the REST API. */
  search?: string | null | undefined;
  /** Names of the recorder's team. */
  teams?: Array<string> | null | undefined;
  /** Meetings changed after this instant, least recently changed first (the order of the change feed; orderBy is then ignored, and RELEVANCE refused). To poll, ask again with the updatedAt of the last meeting received: a change logged late still comes after it. Removals show only in meetingChanges. */
  updatedAfter?: string | null | undefined;
};

export type MeetingsWithSummariesQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  filter?: MeetingFilter | null | undefined;
}>;

export type MeetingsWithSummariesQuery = {
  meetings: {
    edges: Array<{
      node: {
        recordingId: number;
        title: string;
        recordingStartTime: string;
        recordedBy: { name: string | null; email: string };
        defaultSummary: { templateName: string; markdownFormatted: string } | null;
        actionItems: Array<{ description: string; completed: boolean }>;
      };
    }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const MeetingsWithSummariesDocument = new TypedDocumentString(`
    query MeetingsWithSummaries($first: Int!, $after: String, $filter: MeetingFilter) {
  meetings(first: $first, after: $after, filter: $filter) {
    edges {
      node {
        recordingId
        title
        recordingStartTime
        recordedBy {
          name
          email
        }
        defaultSummary {
          templateName
          markdownFormatted
        }
        actionItems {
          description
          completed
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<MeetingsWithSummariesQuery, MeetingsWithSummariesQueryVariables>;
