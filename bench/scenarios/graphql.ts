/**
 * `--only graphql`: the GraphQL query selecting the fields of rest-include (direct.ts,
 * benchGraphQLQuery), first 10; with --peers also served by the peers. Also compressed, as
 * graphql-br.
 */
import { benchAdmin } from '../dataset.js';
import { benchGraphQLQuery } from '../direct.js';
import { peers } from '../report.js';
import { brotli, browserEncodings, loadScenario } from './load-scenario.js';

export const graphql = loadScenario('graphql', ({ opts }) => ({
  name: 'GraphQL meetings, same fields',
  targets: ['service', 'direct', 'ceiling', ...(opts.peers ? peers : [])],
  request: {
    method: 'POST',
    path: '/graphql',
    headers: { 'x-api-key': benchAdmin.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query: benchGraphQLQuery, variables: { first: 10 } }),
  },
}));

export const graphqlBrotli = brotli(graphql);

export const graphqlBrowser = browserEncodings(graphql);
