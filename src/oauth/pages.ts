/**
 * The pages a person sees while authorizing an app: the demo's sign-in (a real one happens at the
 * organisation's identity provider, upstream.ts), consent, and errors. Small, readable without JavaScript or
 * styles, forms that post back to the service; door.ts sends them with headers that forbid framing.
 */
import { type Html, html } from '../http/html.js';

/** Headers of every page: not framed, not cached, no referrer to other sites, nothing loaded from elsewhere. */
export const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  // Same-origin: a form's Origin is sent (no-referrer would send "null"); the app gets no Referer.
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

const styles = `
body { font: 16px/1.5 system-ui, sans-serif; color: #1d1d1f; max-width: 34rem; margin: 2rem auto; padding: 0 1.25rem; }
h1 { font-size: 1.5rem; } .demo { background: #fff4d6; border: 1px solid #e0b000; padding: .5rem .8rem; }
button { font: inherit; padding: .45rem 1rem; margin: .25rem .5rem .25rem 0; cursor: pointer; }
ul.personas { list-style: none; padding: 0; } ul.personas li { margin: .35rem 0; }
.host { font-weight: 600; }`;

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${styles}</style>
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

/** Who may sign in on the demo page. */
export interface DemoAccount {
  email: string;
  label: string;
}

export function demoSignInPage(action: string, appName: string, accounts: readonly DemoAccount[]): string {
  return page(
    'Sign in',
    html`<p class="demo" role="note"><strong>Demo sign-in.</strong> This service runs with its demo data:
anyone may sign in as any demo person, without a password. A real deployment signs people in at
their organisation's identity provider.</p>
<p>Choose who you are to continue to <strong>${appName}</strong>.</p>
<form method="post" action="${action}">
<ul class="personas">
${accounts.map((a) => html`<li><button type="submit" name="email" value="${a.email}">${a.email}</button> ${a.label}</li>\n`)}</ul>
</form>
<form method="post" action="${action}"><button type="submit" name="cancel" value="1">Cancel</button></form>`,
  );
}

export interface ConsentDetails {
  appName: string;
  /** The organisation that registered the app; null when it registered itself. */
  organisation: string | null;
  redirectHost: string;
  userEmail: string;
}

export function consentPage(action: string, c: ConsentDetails): string {
  return page(
    `Allow ${c.appName}?`,
    html`<p><strong>${c.appName}</strong> ${
      c.organisation
        ? html`(registered by ${c.organisation})`
        : html`(it registered itself: no organisation vouches for it)`
    } asks to act for you, <strong>${c.userEmail}</strong>.</p>
<p>If you allow it, it may read what you may read through the API: your meetings and the meetings
shared with you, with their transcripts, summaries, action items and CRM matches; your teams, their
members and your organisation's meeting types; and manage your webhooks. It may not manage your API
keys, nor put transcripts or summaries into lists of meetings.</p>
<p>You will be sent back to <span class="host">${c.redirectHost}</span>. You can revoke its access at any
time (GraphQL: <code>viewer { appAuthorizations }</code>).</p>
<form method="post" action="${action}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, html`<p>${message}</p>`);
}
