/**
 * The reference frontend: a page that signs a person in through the service's OAuth authorization
 * server as a public client (PKCE, no secret), then uses GraphQL as a frontend does: the meetings
 * list first, each meeting's action items filled in as they arrive (@defer over multipart/mixed),
 * a meeting's transcript a page at a time (transcriptEntries) with its summary deferred, search,
 * and live updates (the meetingContentReady subscription over server-sent events). A connected app
 * may not put summaries or transcripts into a list (docs/api/connected-apps.md): it reads them one
 * meeting at a time. Plain DOM and fetch, no framework or client library: what
 * it shows is the protocol. serve.ts registers it with the service and serves it.
 */

interface Config {
  /** The service's base URL, e.g. http://localhost:4000. */
  service: string;
  clientId: string;
  redirectUri: string;
}

interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** One part of an incremental answer (or the only one). */
interface Part {
  data?: any;
  errors?: { message: string }[];
  hasNext?: boolean;
  incremental?: { data?: any; items?: unknown[]; path: (string | number)[] }[];
}

interface MeetingNode {
  recordingId: number;
  title: string;
  createdAt: string;
  recordedBy: { name: string };
  /** Absent until its deferred part has arrived. */
  actionItems?: { description: string }[];
}

const config: Config = await (await fetch('/config.json')).json();
const oauth = `${config.service}/external/v1/oauth2`;
const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

function say(message: string): void {
  $('#status').textContent = message;
}

// ------------------------------------------------------------------------------ signing in (PKCE)

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const tokens = (): Tokens | null => JSON.parse(sessionStorage.getItem('tokens') ?? 'null');

async function signIn(): Promise<void> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const url = new URL(`${oauth}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'public_api',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url);
}

/** The token endpoint (CORS is allowed from a public client's redirect origin); keeps what it issues. */
async function tokenRequest(params: Record<string, string>): Promise<void> {
  const res = await fetch(`${oauth}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.clientId, ...params }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error_description ?? body.error);
  sessionStorage.setItem('tokens', JSON.stringify(body));
}

/** Back from the authorization page: the code for tokens, if the state is the one sent. */
async function finishSignIn(query: URLSearchParams): Promise<void> {
  const sent = JSON.parse(sessionStorage.getItem('pkce') ?? '{}') as { verifier?: string; state?: string };
  sessionStorage.removeItem('pkce');
  history.replaceState(null, '', '/');
  if (query.get('error')) throw new Error(query.get('error_description') ?? query.get('error')!);
  if (!sent.verifier || query.get('state') !== sent.state)
    throw new Error('The sign-in came back with another state: sign in again.');
  await tokenRequest({
    grant_type: 'authorization_code',
    code: query.get('code') ?? '',
    redirect_uri: config.redirectUri,
    code_verifier: sent.verifier,
  });
}

function signOut(): void {
  sessionStorage.removeItem('tokens');
  location.reload();
}

// ------------------------------------------------------------------------------------- GraphQL

/** POSTs a document with the access token; once refreshed and again if the token has expired. */
async function post(
  query: string,
  variables: object,
  accept: string,
  signal?: AbortSignal,
): Promise<Response> {
  const send = () =>
    fetch(`${config.service}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept,
        authorization: `Bearer ${tokens()?.access_token}`,
      },
      body: JSON.stringify({ query, variables }),
      ...(signal ? { signal } : {}),
    });
  const res = await send();
  const refresh = tokens()?.refresh_token;
  if (res.status !== 401 || !refresh) return res;
  await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh });
  return send();
}

/** The lines of a streamed body, as text, as they arrive. */
async function* chunks(res: Response): AsyncGenerator<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

/**
 * The parts of a multipart/mixed answer (each: headers, a blank line, JSON; then a boundary), or
 * the one JSON answer a refusal is.
 */
async function* multipartParts(res: Response): AsyncGenerator<Part> {
  if (!res.headers.get('content-type')?.startsWith('multipart/mixed')) {
    yield await res.json();
    return;
  }
  let buffer = '';
  for await (const chunk of chunks(res)) {
    buffer += chunk;
    for (let end = buffer.indexOf('\r\n---'); end >= 0; end = buffer.indexOf('\r\n---')) {
      const json = buffer.slice(0, end).split('\r\n\r\n')[1]?.trim();
      buffer = buffer.slice(end + 5);
      if (json?.startsWith('{')) yield JSON.parse(json);
    }
  }
}

/** The `next` events of a text/event-stream answer. */
async function* serverSentEvents(res: Response): AsyncGenerator<Part> {
  let buffer = '';
  for await (const chunk of chunks(res)) {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split('\n').find((line) => line.startsWith('data: '));
      if (event.startsWith('event: next') && data) yield JSON.parse(data.slice(6));
    }
  }
}

function fail(part: Part): void {
  if (part.errors?.length) throw new Error(part.errors.map((e) => e.message).join('; '));
}

// -------------------------------------------------------------------------------------- the page

const meetingsQuery = /* GraphQL */ `
  query Meetings($search: String) {
    meetings(first: 10, filter: { search: $search }) {
      edges { node { recordingId title createdAt recordedBy { name }
        ... @defer(label: "actionItems") { actionItems { description } }
      } }
    }
  }`;

const meetingQuery = /* GraphQL */ `
  query Meeting($id: Int!, $after: String, $withSummary: Boolean!) {
    meeting(recordingId: $id) {
      title
      transcriptEntries(first: 10, after: $after) {
        edges { node { timestamp speaker { displayName } text } }
        pageInfo { hasNextPage endCursor }
      }
      ... @defer(label: "summary") @include(if: $withSummary) { defaultSummary { markdownFormatted } }
    }
  }`;

const liveQuery = /* GraphQL */ `
  subscription Live { meetingContentReady { recordingId title createdAt recordedBy { name } actionItems { description } } }`;

function actionItemsText(node: MeetingNode): string {
  if (!node.actionItems) return 'Action items on their way…';
  const [first, ...rest] = node.actionItems;
  if (!first) return 'No action items.';
  return `Next: ${first.description}${rest.length ? ` (and ${rest.length} more)` : ''}`;
}

function meetingItem(node: MeetingNode, isNew = false): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.recordingId = String(node.recordingId);
  if (isNew) item.classList.add('new');
  const title = document.createElement('button');
  title.className = 'title';
  title.textContent = node.title;
  title.addEventListener('click', () => void showTranscript(node.recordingId));
  const meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = `${new Date(node.createdAt).toLocaleString()} · ${node.recordedBy.name}${isNew ? ' · new' : ''}`;
  const actions = document.createElement('p');
  actions.className = 'actions';
  actions.textContent = actionItemsText(node);
  item.append(title, meta, actions);
  return item;
}

/** The list at once, each meeting's action items as their deferred part arrives. */
async function showMeetings(search: string | null): Promise<void> {
  say('Loading meetings…');
  const list = $<HTMLUListElement>('#meetings');
  const res = await post(meetingsQuery, { search }, 'multipart/mixed, application/json');
  let nodes: MeetingNode[] = [];
  for await (const part of multipartParts(res)) {
    fail(part);
    if (part.data) {
      nodes = part.data.meetings.edges.map((e: { node: MeetingNode }) => e.node);
      list.replaceChildren(...nodes.map((node) => meetingItem(node)));
      say(nodes.length ? `${nodes.length} meetings` : 'No meetings found.');
    }
    for (const piece of part.incremental ?? []) {
      const index = piece.path[2] as number; // ['meetings', 'edges', i, 'node']
      const node = nodes[index]!;
      Object.assign(node, piece.data);
      const actions = list.children[index]?.querySelector('.actions');
      if (actions) actions.textContent = actionItemsText(node);
    }
  }
}

let transcriptOf: { id: number; after: string | null } | null = null;

/**
 * A meeting: its transcript a page at a time (`more` asks for the page after the last one shown)
 * and, with the first page, its summary, deferred.
 */
async function showTranscript(id: number, more = false): Promise<void> {
  const after = more && transcriptOf?.id === id ? transcriptOf.after : null;
  const res = await post(
    meetingQuery,
    { id, after, withSummary: !after },
    'multipart/mixed, application/json',
  );
  for await (const part of multipartParts(res)) {
    fail(part);
    if (part.data) showPage(id, after, part.data.meeting);
    for (const piece of part.incremental ?? []) {
      const summary = piece.data?.defaultSummary as { markdownFormatted: string } | null;
      $('#summary').textContent = summary?.markdownFormatted ?? 'No summary.';
    }
  }
}

type Line = { node: { timestamp: string; speaker: { displayName: string }; text: string } };

function showPage(
  id: number,
  after: string | null,
  meeting: {
    title: string;
    transcriptEntries: { edges: Line[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } | null;
  },
): void {
  const page = meeting.transcriptEntries;
  $('#transcript').hidden = false;
  $('#transcript h2').textContent = meeting.title;
  if (!after) $('#summary').textContent = 'Summary on its way…';
  const lines = $<HTMLOListElement>('#transcript ol');
  const shown = (page?.edges ?? []).map(({ node }) => {
    const line = document.createElement('li');
    line.textContent = `${node.timestamp} ${node.speaker.displayName}: ${node.text}`;
    return line;
  });
  if (after) lines.append(...shown);
  else lines.replaceChildren(...shown);
  transcriptOf = { id, after: page?.pageInfo.endCursor ?? null };
  $<HTMLButtonElement>('#more').hidden = !page?.pageInfo.hasNextPage;
}

/** New meetings as their content is ready, at the top of the list; reconnects when the stream ends. */
async function followLive(): Promise<void> {
  for (;;) {
    try {
      const res = await post(liveQuery, {}, 'text/event-stream');
      $('#live').textContent = 'Live: on';
      for await (const event of serverSentEvents(res)) {
        fail(event);
        const node = event.data?.meetingContentReady as MeetingNode | undefined;
        if (node) $('#meetings').prepend(meetingItem(node, true));
      }
    } catch {
      // The connection dropped: try again shortly.
    }
    $('#live').textContent = 'Live: reconnecting';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function main(): Promise<void> {
  $('#sign-in').addEventListener('click', () => void signIn());
  $('#sign-out').addEventListener('click', signOut);
  $('#more').addEventListener('click', () => transcriptOf && void showTranscript(transcriptOf.id, true));
  $('#search').addEventListener('submit', (event) => {
    event.preventDefault();
    const search = new FormData(event.target as HTMLFormElement).get('q')?.toString().trim();
    void showMeetings(search || null).catch((error: Error) => say(error.message));
  });
  const query = new URLSearchParams(location.search);
  if (query.has('code') || query.has('error')) await finishSignIn(query);
  if (!tokens()) {
    say('Sign in to see your meetings.');
    return;
  }
  $('#sign-in').hidden = true;
  $('#sign-out').hidden = false;
  $('#search').hidden = false;
  const viewer = await (await post('{ viewer { name email } }', {}, 'application/json')).json();
  fail(viewer);
  $('#who').textContent = `${viewer.data.viewer.name} (${viewer.data.viewer.email})`;
  await showMeetings(null);
  void followLive();
}

main().catch((error: Error) => say(error.message));

export {}; // a module: top-level await above
