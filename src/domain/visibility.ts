/**
 * Who may see which meeting (docs/api/access.md). The only place that decides it: the
 * MongoDB filter for lists and the predicate for single meetings are built side by side here and
 * a test holds them to each other.
 */
import type { Filter, ObjectId } from 'mongodb';
import type { AudienceDoc, MeetingDoc, UserDoc } from '../db/documents.js';
import type { Viewer } from './viewer.js';

/** Teams whose shared meetings the viewer's view_access covers (rule 4); `all` for all_teams. */
function coveredTeams(user: UserDoc): ObjectId[] | 'all' {
  switch (user.viewAccess.level) {
    case 'all_teams':
      return 'all';
    case 'own_meetings':
      return [];
    default:
      return user.viewAccess.teamIds;
  }
}

/** The teams through which the viewer sees team-shared meetings: their own (rule 3) and covered ones (rule 4). */
function teamsSeen(user: UserDoc): ObjectId[] | 'all' {
  const covered = coveredTeams(user);
  if (covered === 'all') return 'all';
  return user.teamId ? [user.teamId, ...covered] : covered;
}

export function visibleMeetingsFilter({ user }: Viewer): Filter<MeetingDoc> {
  const ways: Filter<MeetingDoc>[] = [{ recorderId: user._id }, { sharedWithEmails: user.email }];
  const teams = teamsSeen(user);
  if (teams === 'all') {
    ways.push(
      { orgId: user.orgId, sharedWithAllTeams: true },
      { orgId: user.orgId, 'sharedTeamIds.0': { $exists: true } },
    );
  } else if (teams.length > 0) {
    ways.push(
      { orgId: user.orgId, sharedWithAllTeams: true },
      { orgId: user.orgId, sharedTeamIds: { $in: teams } },
    );
  }
  return { $or: ways };
}

export function canSee({ user }: Viewer, meeting: AudienceDoc): boolean {
  if (meeting.recorderId.equals(user._id)) return true;
  if (meeting.sharedWithEmails.includes(user.email)) return true;
  if (!meeting.orgId.equals(user.orgId)) return false;
  const teams = teamsSeen(user);
  if (teams === 'all') return meeting.sharedWithAllTeams || meeting.sharedTeamIds.length > 0;
  if (teams.length === 0) return false;
  return meeting.sharedWithAllTeams || meeting.sharedTeamIds.some((id) => teams.some((t) => t.equals(id)));
}

/** What of `meeting` decides who may see it: what the change log keeps of it before and after a change. */
export function audienceOf(meeting: AudienceDoc): AudienceDoc {
  const { orgId, recorderId, sharedWithEmails, sharedTeamIds, sharedWithAllTeams } = meeting;
  return { orgId, recorderId, sharedWithEmails, sharedTeamIds, sharedWithAllTeams };
}
