/** How a meeting is shared, and the `shared_with` value that sums it up. */
import type { ObjectId } from 'mongodb';
import type { MeetingDoc, SharedWith } from '../db/documents.js';

/**
 * `all_teams` means every team of the organisation (docs/api/access.md): shared with "all teams" as such
 * (the stored flag, which also covers teams created later), or team by team with every team the
 * organisation has now (`orgTeamIds`: the ids of the recorder's organisation's teams).
 */
export function sharedWithOf(
  meeting: Pick<MeetingDoc, 'sharedTeamIds' | 'sharedWithAllTeams'>,
  orgTeamIds: readonly ObjectId[],
): SharedWith {
  if (meeting.sharedWithAllTeams) return 'all_teams';
  const shared = meeting.sharedTeamIds;
  if (shared.length === 0) return 'no_teams';
  if (orgTeamIds.length > 0 && orgTeamIds.every((id) => shared.some((s) => s.equals(id)))) return 'all_teams';
  return shared.length === 1 ? 'single_team' : 'multiple_teams';
}

/** How a meeting is shared: with users by email, with teams, with all teams. */
type Sharing = Pick<MeetingDoc, 'sharedWithEmails' | 'sharedTeamIds' | 'sharedWithAllTeams'>;

export function isSharedWithAnyTeam(
  meeting: Pick<MeetingDoc, 'sharedTeamIds' | 'sharedWithAllTeams'>,
): boolean {
  return meeting.sharedWithAllTeams || meeting.sharedTeamIds.length > 0;
}

/** Whether two states of a meeting are shared differently (users, teams, all teams). */
export function sharingChanged(before: Sharing, after: Sharing): boolean {
  const inOrder = (values: readonly string[]) => JSON.stringify([...values].sort());
  const teams = (m: Sharing) => inOrder(m.sharedTeamIds.map((id) => id.toHexString()));
  return (
    before.sharedWithAllTeams !== after.sharedWithAllTeams ||
    inOrder(before.sharedWithEmails) !== inOrder(after.sharedWithEmails) ||
    teams(before) !== teams(after)
  );
}
