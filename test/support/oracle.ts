/**
 * An access oracle written from domain.md alone, over the seed dataset (not the service's code):
 * which recordings may a user see, and which of those does an unfiltered list show.
 */
import type { Dataset } from '../../seeds/index.js';

type User = Dataset['users'][number];
type Meeting = Dataset['meetings'][number];

function teamsOfOrg(dataset: Dataset, org: string): string[] {
  return dataset.teams.filter((t) => t.organisation === org).map((t) => t.name);
}

function sharedTeams(dataset: Dataset, meeting: Meeting, recorder: User): string[] {
  return meeting.sharing.all_teams ? teamsOfOrg(dataset, recorder.organisation) : meeting.sharing.teams;
}

export function maySee(dataset: Dataset, viewer: User, meeting: Meeting): boolean {
  const recorder = dataset.users.find((u) => u.email === meeting.recorded_by)!;
  if (recorder.email === viewer.email) return true; // 1. recorded it
  if (meeting.sharing.users.includes(viewer.email)) return true; // 2. shared individually
  if (recorder.organisation !== viewer.organisation) return false;
  const teams = sharedTeams(dataset, meeting, recorder);
  if (viewer.team && teams.includes(viewer.team)) return true; // 3. the viewer's team
  const view = viewer.permissions.view_access; // 4. teams the viewer's view access covers
  if (teams.length === 0 || view.level === 'own_meetings') return false;
  return view.level === 'all_teams' || view.teams.some((t) => teams.includes(t));
}

export function visibleRecordings(dataset: Dataset, viewerEmail: string): Set<number> {
  const viewer = dataset.users.find((u) => u.email === viewerEmail)!;
  return new Set(dataset.meetings.filter((m) => maySee(dataset, viewer, m)).map((m) => m.recording_id));
}

/** What an unfiltered list shows: meetings recorded by someone of another organisation only when named. */
export function listedByDefault(dataset: Dataset, viewerEmail: string): Set<number> {
  const viewer = dataset.users.find((u) => u.email === viewerEmail)!;
  const orgOf = (email: string) => dataset.users.find((u) => u.email === email)!.organisation;
  return new Set(
    dataset.meetings
      .filter((m) => maySee(dataset, viewer, m) && orgOf(m.recorded_by) === viewer.organisation)
      .map((m) => m.recording_id),
  );
}
