/** How a meeting is shared, and the `shared_with` value that sums it up. */
import type { MeetingDoc, SharedWith } from '../db/documents.js';

export function sharedWithOf(meeting: Pick<MeetingDoc, 'sharedTeamIds' | 'sharedWithAllTeams'>): SharedWith {
  if (meeting.sharedWithAllTeams) return 'all_teams';
  if (meeting.sharedTeamIds.length === 0) return 'no_teams';
  return meeting.sharedTeamIds.length === 1 ? 'single_team' : 'multiple_teams';
}

export function isSharedWithAnyTeam(
  meeting: Pick<MeetingDoc, 'sharedTeamIds' | 'sharedWithAllTeams'>,
): boolean {
  return meeting.sharedWithAllTeams || meeting.sharedTeamIds.length > 0;
}
