/**
 * What a meeting's invitee list says about it (docs/api/access.md): who is external, the domains type and
 * the one company the meeting is associated with.
 */
import type { DomainsType, InviteeDoc } from '../db/documents.js';
import { emailDomain } from './email.js';

/** An invitee is external when the email domain is not one of the organisation's domains. */
export function describeInvitee(
  invitee: { name: string | null; email: string | null },
  orgDomains: readonly string[],
): InviteeDoc {
  const domain = emailDomain(invitee.email);
  return {
    name: invitee.name,
    email: invitee.email?.toLowerCase() ?? null,
    emailDomain: domain,
    isExternal: domain !== null && !orgDomains.includes(domain),
  };
}

export function domainsTypeOf(invitees: readonly InviteeDoc[]): DomainsType {
  return invitees.some((i) => i.isExternal) ? 'one_or_more_external' : 'only_internal';
}

/** The external domain that occurs most often among the invitees; ties go to the alphabetically first. */
export function companyDomainOf(invitees: readonly InviteeDoc[]): string | null {
  const counts = new Map<string, number>();
  for (const i of invitees)
    if (i.isExternal && i.emailDomain) counts.set(i.emailDomain, (counts.get(i.emailDomain) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [domain, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== null && domain < best)) {
      best = domain;
      bestCount = count;
    }
  }
  return best;
}
