/**
 * `--only oauth`: what a warm OAuth access token costs the database against a warm API key of the
 * same user, request for request (issue 30: a token must cost no more round trips than a key). A
 * service of its own with the demo data, whose demo sign-in lets an app be authorized through the
 * real pages (test/support/oauth.ts, a browser over HTTP); then each request is counted with the
 * key and with the token, and the token endpoint's own commands per refresh.
 */
import { keyOf } from '../../test/support/app.js';
import { authorize, exchange, registerApp, token } from '../../test/support/oauth.js';
import { commandsBetween, commandsOf } from '../commands-per-request.js';
import { Child } from '../ipc.js';
import type { LoadRequest } from '../load.js';
import type { CredentialCost } from '../report.js';
import { demoServiceEnv } from '../service-env.js';
import type { Scenario } from './scenario.js';

/** Tom, a team admin: his key, and the token his authorization gives. */
const tom = { email: 'tom.baker@acme.test', key: keyOf('team admin (Sales)') };

function requestsOf(recordingId: number): { name: string; request: Omit<LoadRequest, 'headers'> }[] {
  const graphql = '{ meetings(first: 10) { edges { node { title recordedBy { name } } } } }';
  return [
    { name: 'REST GET /meetings', request: { method: 'GET', path: '/external/v1/meetings?limit=10' } },
    {
      name: 'REST GET /recordings/{id}/transcript',
      request: { method: 'GET', path: `/external/v1/recordings/${recordingId}/transcript` },
    },
    {
      name: 'GraphQL meetings(first: 10)',
      request: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: graphql }) },
    },
  ];
}

export const oauth: Scenario = {
  selectedBy: ['oauth'],
  needs: 'own processes',
  run: async ({ opts, log, elapsed, children }) => {
    log(`\nOAuth: commands per request, a warm token against a warm key of the same user (${elapsed()})`);
    const child = Child.start('service (demo data)', 'bench/service.ts', demoServiceEnv(opts.logLevel), {
      quiet: true,
    });
    children.push(child);
    const { url } = (await child.ready) as { url: string };
    const service = { url, child };

    const app = await registerApp(service);
    const { redirect } = await authorize(service, { clientId: app.clientId, email: tom.email });
    const issued = await exchange(service, app, redirect.searchParams.get('code')!);
    if (issued.status !== 200) throw new Error(`the token exchange answered ${issued.status}`);

    const listed = await fetch(`${url}/external/v1/meetings?limit=1`, { headers: { 'x-api-key': tom.key } });
    const recordingId = ((await listed.json()) as { items: { recording_id: number }[] }).items[0]!
      .recording_id;
    const rows: CredentialCost[] = [];
    for (const { name, request } of requestsOf(recordingId)) {
      const json: Record<string, string> = request.body ? { 'content-type': 'application/json' } : {};
      const byKey = await commandsOf(service, { ...request, headers: { ...json, 'x-api-key': tom.key } }, 5);
      const byToken = await commandsOf(
        service,
        { ...request, headers: { ...json, authorization: `Bearer ${issued.body.access_token}` } },
        5,
      );
      rows.push({
        request: name,
        apiKey: byKey.perRequest,
        token: byToken.perRequest,
        byNameApiKey: byKey.byName,
        byNameToken: byToken.byName,
      });
      log(
        `  ${name.padEnd(40)} key ${byKey.perRequest} ${JSON.stringify(byKey.byName)}  token ${byToken.perRequest} ${JSON.stringify(byToken.byName)}`,
      );
    }

    // The token endpoint: each refresh rotates, so the same request cannot be repeated.
    const refreshes = 5;
    let refreshToken = issued.body.refresh_token as string;
    const before = await child.stats();
    for (let i = 0; i < refreshes; i++) {
      const answer = await token(service, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      });
      if (answer.status !== 200) throw new Error(`a refresh answered ${answer.status}`);
      refreshToken = answer.body.refresh_token;
    }
    const spent = commandsBetween(before, await child.stats(), refreshes);
    const refresh: CredentialCost = {
      request: 'token endpoint, a refresh (rotated)',
      apiKey: null,
      token: spent.perRequest,
      byNameApiKey: {},
      byNameToken: spent.byName,
    };
    rows.push(refresh);
    log(`  ${refresh.request.padEnd(40)} ${refresh.token} ${JSON.stringify(refresh.byNameToken)}`);
    await child.stop();
    return { credentials: rows };
  },
};
