/** Assembles the schema: each import registers its types, queries and mutations on the builder. */
import { builder } from '../builder.js';
import './meeting.js';
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

export const schema = builder.toSchema({ sortSchema: true });
