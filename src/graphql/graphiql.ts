/**
 * What GraphiQL opens with: a headers editor holding a key (the demo admin's when the demo dataset
 * is loaded, else a placeholder saying what goes there) and one tab per thing worth trying first.
 * Its Docs never need a key: introspection is public (public-introspection.ts), so the schema it
 * loads does not depend on the headers and cannot go stale when they change.
 */
import type { GraphiQLOptions } from 'graphql-yoga';

export interface GraphiQLSetup {
  /** The key the headers editor starts with; without one, a placeholder. */
  apiKey?: string;
  /** A recording with media the key may download (the demo dataset has a few). */
  downloadableRecordingId?: number;
}

export const API_KEY_PLACEHOLDER = '<your API key: npm start prints one per demo persona>';

/** The tab comment lines that say where the key comes from. */
function keyNote(apiKey: string | undefined): string {
  return apiKey
    ? `# Headers (below) already hold the demo
# account admin's key (Alice Moreau).`
    : `# First put your API key into Headers
# (below), then run.`;
}

// Every line of these examples fits GraphiQL's query editor on a 1280×720 screen without a
// sideways scroll: about 49 columns show there, and the editor scrolls once a line comes within
// 5 columns of its edge (Monaco's scrollBeyondLastColumn), so at most 44 columns here.
// test/graphql/graphiql.test.ts measures it in Chromium.

const meetingsTab = (apiKey: string | undefined) => `# Your newest meetings, with their
# summary and transcript lines.
${keyNote(apiKey)}
# Run with ▶ (Ctrl-Enter). Docs (the book
# icon, top left) lists every field.
# A meeting still processing has
# defaultSummary and transcript null until
# its content is ready.
query RecentMeetings {
  viewer { name email }
  meetings(first: 5) {
    edges {
      node {
        recordingId
        title
        recordingStartTime
        recordedBy { name team }
        defaultSummary { markdownFormatted }
        transcript {
          timestamp
          speaker { displayName }
          text
        }
      }
    }
  }
}
`;

const pagingTab = `# Paging: lists are Relay connections,
# newest first, forward only. Run it, then
# copy pageInfo.endCursor into "after" in
# Variables (below) and run again for the
# next page; hasNextPage says whether there
# is one.
query MeetingPage(
  $first: Int
  $after: String
) {
  meetings(first: $first, after: $after) {
    edges {
      node {
        recordingId
        title
        recordingStartTime
        sharedWith
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

const pagingVariables = JSON.stringify({ first: 3, after: null }, null, 2);

const changesTab = `# Keeping a copy in sync: every change
# of the meetings you see (created,
# content, sharing, deleted), in order.
# Take meetingChangesCursor, copy every
# meeting, then follow meetingChanges from
# that cursor: copy \`meeting\`, or remove it
# when \`removed\`. Keep endCursor; ask again
# later from it (docs/api/mirroring.md).
query MeetingChanges($after: String) {
  meetingChangesCursor
  meetingChanges(after: $after, first: 10) {
    edges {
      node {
        recordingId
        kinds
        at
        removed
        meeting { title updatedAt }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

const searchTab = `# Search: meetings where every word and
# "quoted phrase" was said (or written in
# the title, summary or action items), and
# where: each edge's matches give the place
# and, in a transcript, the moment and the
# speaker. Words match by stem ("priced"
# finds "pricing"); -word excludes.
# orderBy: RELEVANCE puts the best matches
# first (NEWEST is the default).
query SearchMeetings($search: String!) {
  meetings(
    filter: { search: $search }
    orderBy: RELEVANCE
    first: 5
  ) {
    edges {
      node {
        recordingId
        title
        recordingStartTime
      }
      matches(first: 3) {
        field
        snippet
        timestamp
        speaker
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

const searchVariables = JSON.stringify({ search: 'pricing "walk you through"' }, null, 2);

// A public IP literal: a host name is resolved when a webhook is registered, which fails on a
// machine without DNS, and the egress guard refuses loopback and private addresses (unless
// EGRESS_ALLOW_CIDRS opens them). 93.184.216.34 is the address the guard's tests use as public.
// It is someone else's host, so the URL is https: certificates rarely name a bare IP, so a
// delivery fails its TLS handshake before any meeting content is sent there.
const webhookTab = `# Registers a webhook: new meeting content
# is POSTed to destinationUrl, signed
# (Standard Webhooks). The secret is shown
# this once: keep it.
# The URL must be http(s) and reach a
# public address: loopback and private ones
# are refused unless EGRESS_ALLOW_CIDRS
# opens them, and a host name must resolve.
# This example uses a public IP literal so
# that it works even offline (https: its
# certificate will not match the bare IP,
# so no content is sent there); put your
# receiver's URL there.
# deleteWebhook(id:) removes it.
mutation CreateWebhook {
  createWebhook(input: {
    destinationUrl:
      "https://93.184.216.34/hook"
    triggeredFor: [
      MY_RECORDINGS
      SHARED_TEAM_RECORDINGS
    ]
    includeSummary: true
    includeActionItems: true
  }) {
    secret
    webhook {
      id
      url
      triggeredFor
      enabled
      createdAt
    }
  }
}
`;

// Connected apps: the registration runs here; the rest of the flow is a browser and curl.
const appTab = `# Connected apps (OAuth 2.0): an account
# admin registers an app, whose secret is
# shown this once. Then open in a browser
#   /external/v1/oauth2/authorize
#     ?response_type=code&state=1
#     &client_id=<clientId>
#     &redirect_uri=<a redirect URI>
# sign in, allow, and copy the code from
# the address the browser is sent to:
#   curl <this server>/external/v1/
#     oauth2/token
#     -d grant_type=authorization_code
#     -d code=<code>
#     -d redirect_uri=<the same URI>
#     -d client_id=<clientId>
#     -d client_secret=<clientSecret>
# Its access_token goes in a header
#   Authorization: Bearer <access_token>
# on both doors. apps lists the apps;
# deleteApp(clientId:) removes one.
mutation RegisterApp {
  registerApp(input: {
    name: "My CRM"
    redirectUris: [
      "http://127.0.0.1:9999/callback"
    ]
    kind: CONFIDENTIAL
  }) {
    clientSecret
    app {
      clientId
      name
      redirectUris
    }
  }
}
`;

const downloadTab = `# Downloads: a recording's media (its
# video, or its audio) through a signed
# link that works for a day, to whoever
# holds it: run it, then open audio.url (or
# video.url) in the browser. The demo gives
# Alice's three newest own recordings a
# short audio file; Meeting.media says
# which recordings have one.
mutation Download($recordingId: Int!) {
  requestDownload(
    recordingId: $recordingId
  ) {
    id
    status
    video {
      url
      contentType
      fileSizeBytes
      expiresAt
    }
    audio {
      url
      contentType
      fileSizeBytes
      expiresAt
    }
  }
}
`;

// The demo's newest meeting is still processing and not shared yet (seeds/demo.ts): the command
// finishes it and shares it with its recorder's team, which the demo admin sees (all teams).
const subscriptionTab = `# Live updates: each meeting you may see,
# when its content becomes ready. Run it
# (it waits), then make an event happen
# from a terminal, e.g. finish the newest
# demo meeting (Mike's: still processing,
# not shared yet) and share it with his
# team. The service must have been started
# with a fixed engine port:
#   EMBEDDED_MONGO_PORT=27018 npm start
# Then:
#   npm run -s seed -- --print-demo |
#   jq '.meetings[-1] + {
#     default_summary: {
#       template_name: "General",
#       markdown_formatted:
#         "## Summary\\nDone."},
#     sharing: {users: [],
#       teams: ["Engineering"],
#       all_teams: false}
#   }' > /tmp/meeting.json
#   ENGINE=mongodb://127.0.0.1:27018
#   OPTS='?directConnection=true'
#   export MONGODB_URI="$ENGINE/$OPTS"
#   npm run ingest -- \\
#     --file /tmp/meeting.json
subscription ContentReady {
  meetingContentReady {
    recordingId
    title
    defaultSummary { markdownFormatted }
  }
}
`;

export function graphiqlOptions({ apiKey, downloadableRecordingId }: GraphiQLSetup): GraphiQLOptions {
  const headers = JSON.stringify({ 'X-Api-Key': apiKey ?? API_KEY_PLACEHOLDER }, null, 2);
  return {
    title: 'Meetings GraphQL',
    // For every tab, new ones too (Yoga hands it to GraphiQL as its default headers).
    headers,
    defaultTabs: [
      { query: meetingsTab(apiKey), headers },
      { query: pagingTab, variables: pagingVariables, headers },
      { query: changesTab, variables: JSON.stringify({ after: null }, null, 2), headers },
      { query: searchTab, variables: searchVariables, headers },
      { query: webhookTab, headers },
      { query: appTab, headers },
      {
        query: downloadTab,
        variables: JSON.stringify({ recordingId: downloadableRecordingId ?? null }, null, 2),
        headers,
      },
      { query: subscriptionTab, headers },
    ],
    // Keys stay out of localStorage: anything on this origin could read them there, and they would
    // outlive the session on a shared machine. Tabs still persist; their headers come back from
    // the defaults above on each visit (the demo key, or the placeholder to paste into).
    shouldPersistHeaders: false,
    // Subscriptions as the server speaks them: POST with Accept: text/event-stream.
    subscriptionsProtocol: 'SSE',
  };
}
