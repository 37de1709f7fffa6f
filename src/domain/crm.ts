/**
 * CRM matches per viewer (docs/api/access.md): the viewer's own CRM connection, else their team's, else
 * "no CRM connected". Contacts match invitee emails, companies external invitee domains, deals
 * the matched companies. A page of meetings costs one query for the connection and one for records.
 */
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { CrmConnectionDoc, CrmRecordDoc, MeetingDoc, UserDoc } from '../db/documents.js';

export interface CrmMatches {
  contacts: { name: string; email: string; recordUrl: string }[];
  companies: { name: string; recordUrl: string }[];
  deals: { name: string; amount: number; recordUrl: string }[];
  error: string | null;
}

export const NO_CRM_CONNECTED = 'no CRM connected';

export async function crmConnectionOf(
  collections: Collections,
  user: UserDoc,
): Promise<CrmConnectionDoc | null> {
  const owners: { 'owner.kind': 'user' | 'team'; 'owner.id': ObjectId }[] = [
    { 'owner.kind': 'user', 'owner.id': user._id },
  ];
  if (user.teamId) owners.push({ 'owner.kind': 'team', 'owner.id': user.teamId });
  const connections = await collections.crmConnections.find({ $or: owners }).toArray();
  return connections.find((c) => c.owner.kind === 'user') ?? connections[0] ?? null;
}

function externalDomains(meeting: MeetingDoc): string[] {
  return meeting.calendarInvitees.filter((i) => i.isExternal && i.emailDomain).map((i) => i.emailDomain!);
}

function inviteeEmails(meeting: MeetingDoc): string[] {
  return meeting.calendarInvitees.filter((i) => i.email).map((i) => i.email!);
}

/** The CRM matches of each meeting, in order, as seen through `connection`. */
export async function crmMatchesFor(
  collections: Collections,
  connection: CrmConnectionDoc | null,
  meetings: readonly MeetingDoc[],
): Promise<CrmMatches[]> {
  if (!connection) {
    return meetings.map(() => ({ contacts: [], companies: [], deals: [], error: NO_CRM_CONNECTED }));
  }
  const emails = [...new Set(meetings.flatMap(inviteeEmails))];
  const domains = [...new Set(meetings.flatMap(externalDomains))];
  const records: CrmRecordDoc[] =
    emails.length + domains.length === 0
      ? []
      : await collections.crmRecords
          .find({
            connectionId: connection._id,
            $or: [
              { kind: 'contact', email: { $in: emails } },
              { kind: 'company', domain: { $in: domains } },
              { kind: 'deal', companyDomain: { $in: domains } },
            ],
          })
          .toArray();

  return meetings.map((meeting) => {
    const mine = new Set(inviteeEmails(meeting));
    const companyDomains = new Set(externalDomains(meeting));
    const matches: CrmMatches = { contacts: [], companies: [], deals: [], error: null };
    const matchedCompanies = new Set<string>();
    for (const r of records) {
      if (r.kind === 'contact' && mine.has(r.email))
        matches.contacts.push({ name: r.name, email: r.email, recordUrl: r.recordUrl });
      if (r.kind === 'company' && companyDomains.has(r.domain)) {
        matches.companies.push({ name: r.name, recordUrl: r.recordUrl });
        matchedCompanies.add(r.domain);
      }
    }
    for (const r of records) {
      if (r.kind === 'deal' && matchedCompanies.has(r.companyDomain)) {
        matches.deals.push({ name: r.name, amount: r.amount, recordUrl: r.recordUrl });
      }
    }
    return matches;
  });
}
