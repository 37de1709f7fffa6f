/** Assembles the schema: each import registers its types, queries and mutations on the builder. */
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from '../builder.js';
import './meeting.js';
import './meeting-change.js';
import './meeting-content.js';
import './team.js';
import './meeting-type.js';
import './user.js';
import './api-key.js';
import './app.js';
import './webhook.js';
import './delivery.js';
import './download.js';
import './ingestion.js';
import './subscription.js';

/**
 * With @defer and @stream (incremental delivery, which Yoga's defer-stream plugin validates and
 * serves): declared here, so schema.graphql, trusted documents and every door know them.
 */
export const schema = builder.toSchema({
  sortSchema: true,
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});
