/** MeetingType, and the `meetingTypes` query. */
import type { MeetingTypeDoc, MeetingTypeStatus } from '../../db/documents.js';
import { listMeetingTypes } from '../../domain/directory.js';
import { builder } from '../builder.js';
import { connectionOf, listType, pageArgs } from '../connection.js';
import { viewerOf } from '../context.js';

const MeetingTypeStatusEnum = builder.enumType('MeetingTypeStatus', {
  values: { ACTIVE: { value: 'active' }, INACTIVE: { value: 'inactive' } } as const satisfies Record<
    string,
    { value: MeetingTypeStatus }
  >,
});

const MeetingType = builder.objectRef<MeetingTypeDoc>('MeetingType').implement({
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'The value to filter meetings by (MeetingFilter.meetingType).',
    }),
    status: t.field({ type: MeetingTypeStatusEnum, resolve: (m) => m.status }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const MeetingTypeList = listType('QueryMeetingTypesConnection', MeetingType);

builder.queryFields((t) => ({
  meetingTypes: t.field({
    type: MeetingTypeList,
    description: "Your organisation's meeting types, active and inactive, by name.",
    args: pageArgs(),
    resolve: async (_root, args, context) =>
      connectionOf(await listMeetingTypes(context.collections, viewerOf(context), args)),
  }),
}));
