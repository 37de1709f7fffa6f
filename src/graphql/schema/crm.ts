/** CRM matches of a meeting, as the viewer's (or their team's) CRM sees it. */
import type { CrmMatches as CrmMatchesShape } from '../../domain/crm.js';
import { builder } from '../builder.js';

const CrmContact = builder.objectRef<CrmMatchesShape['contacts'][number]>('CrmContact').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    recordUrl: t.exposeString('recordUrl'),
  }),
});

const CrmCompany = builder.objectRef<CrmMatchesShape['companies'][number]>('CrmCompany').implement({
  fields: (t) => ({ name: t.exposeString('name'), recordUrl: t.exposeString('recordUrl') }),
});

const CrmDeal = builder.objectRef<CrmMatchesShape['deals'][number]>('CrmDeal').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    amount: t.exposeFloat('amount', { description: 'In dollars.' }),
    recordUrl: t.exposeString('recordUrl'),
  }),
});

export const CrmMatches = builder.objectRef<CrmMatchesShape>('CrmMatches').implement({
  fields: (t) => ({
    contacts: t.field({ type: [CrmContact], resolve: (m) => m.contacts }),
    companies: t.field({ type: [CrmCompany], resolve: (m) => m.companies }),
    deals: t.field({ type: [CrmDeal], resolve: (m) => m.deals }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why matching could not be done, e.g. "no CRM connected".',
    }),
  }),
});
