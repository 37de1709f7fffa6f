/**
 * Connected apps (docs/api/connected-apps.md): OAuth clients an account admin registers for their
 * organisation, lists, gives a new secret and deletes. A confidential app's secret is returned
 * once, when it is made or rotated, and stored as its SHA-256; a public app has none (browser
 * apps, MCP clients: they prove PKCE instead). Deleting an app revokes every grant it holds.
 */
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { AppDoc, AppKind } from '../db/documents.js';
import { randomBase62 } from './api-key-format.js';
import { DomainError } from './errors.js';
import { revokeGrantsOfApp } from './grants.js';
import { hashSecret, type Viewer } from './viewer.js';

/** Apps one organisation may hold: enough for every integration, not for a loop. */
export const MAX_APPS_PER_ORGANISATION = 100;
const MAX_NAME_LENGTH = 100;
const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;

/** A client id: `mga_` and 24 random base62 characters (public: it appears in URLs). */
export const newClientId = () => `mga_${randomBase62(24)}`;
/** A client secret: `mgs_` and 40 random base62 characters (238 bits). */
const newClientSecret = () => `mgs_${randomBase62(40)}`;

/** Apps are managed by an account admin, with an API key (an app may not make apps). */
function requireAccountAdmin(viewer: Viewer): void {
  if (viewer.via !== 'api_key')
    throw new DomainError('FORBIDDEN', 'Apps are managed with an API key, not with a connected app token.');
  if (viewer.user.settingsAccess.level !== 'account_admin')
    throw new DomainError('FORBIDDEN', "Only an account admin may manage the organisation's connected apps.");
}

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The problem with a redirect URI, if any: it must be absolute, https (or http on a loopback
 * address, for apps on the user's machine), without a fragment or credentials. Matched exactly.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol === 'http:' && !loopbackHosts.has(url.hostname))
    return 'must use https (http only on a loopback address: 127.0.0.1, [::1] or localhost)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.hash || uri.includes('#')) return 'may not have a fragment (#…)';
  if (url.username || url.password) return 'may not carry a user name or password';
  return undefined;
}

export interface NewApp {
  name: string;
  redirectUris: string[];
  kind: AppKind;
}

function checkApp({ name, redirectUris }: Pick<NewApp, 'name' | 'redirectUris'>): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH)
    throw new DomainError('BAD_USER_INPUT', `An app's name is 1 to ${MAX_NAME_LENGTH} characters.`);
  if (redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS)
    throw new DomainError('BAD_USER_INPUT', `An app has 1 to ${MAX_REDIRECT_URIS} redirect URIs.`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new DomainError('BAD_USER_INPUT', `The redirect URI ${JSON.stringify(uri)} ${problem}.`);
  }
  return trimmed;
}

/** Registers an app of the viewer's organisation; a confidential app's secret is in the answer, once. */
export async function registerApp(
  collections: Collections,
  viewer: Viewer,
  input: NewApp,
  now = new Date(),
): Promise<{ app: AppDoc; clientSecret: string | null }> {
  requireAccountAdmin(viewer);
  const name = checkApp(input);
  const held = await collections.apps.countDocuments({ orgId: viewer.org._id });
  if (held >= MAX_APPS_PER_ORGANISATION)
    throw new DomainError(
      'BAD_USER_INPUT',
      `An organisation holds at most ${MAX_APPS_PER_ORGANISATION} apps: delete one it no longer uses first.`,
    );
  const clientSecret = input.kind === 'confidential' ? newClientSecret() : null;
  const app: AppDoc = {
    _id: new ObjectId(),
    clientId: newClientId(),
    name,
    orgId: viewer.org._id,
    createdBy: viewer.user._id,
    redirectUris: [...new Set(input.redirectUris)],
    kind: input.kind,
    secretHash: clientSecret ? hashSecret(clientSecret) : null,
    createdAt: now,
    secretRotatedAt: null,
  };
  await collections.apps.insertOne(app);
  return { app, clientSecret };
}

/** The apps of the viewer's organisation, newest first. */
export async function appsOfOrganisation(collections: Collections, viewer: Viewer): Promise<AppDoc[]> {
  requireAccountAdmin(viewer);
  return collections.apps.find({ orgId: viewer.org._id }).sort({ createdAt: -1, _id: -1 }).toArray();
}

/** An app of the viewer's organisation by its client id; NOT_FOUND for any other. */
async function ownApp(collections: Collections, viewer: Viewer, clientId: string): Promise<AppDoc> {
  requireAccountAdmin(viewer);
  const app = await collections.apps.findOne({ clientId, orgId: viewer.org._id });
  if (!app) throw new DomainError('NOT_FOUND', `No app ${clientId} in your organisation.`);
  return app;
}

/** Gives a confidential app a new secret (the old one stops at once); returned once. */
export async function rotateAppSecret(
  collections: Collections,
  viewer: Viewer,
  clientId: string,
  now = new Date(),
): Promise<{ app: AppDoc; clientSecret: string }> {
  const app = await ownApp(collections, viewer, clientId);
  if (app.kind !== 'confidential')
    throw new DomainError('BAD_USER_INPUT', 'A public app has no secret to rotate.');
  const clientSecret = newClientSecret();
  const secretHash = hashSecret(clientSecret);
  await collections.apps.updateOne({ _id: app._id }, { $set: { secretHash, secretRotatedAt: now } });
  return { app: { ...app, secretHash, secretRotatedAt: now }, clientSecret };
}

/** Deletes an app and revokes every grant it holds: its tokens stop within the credential cache's bound. */
export async function deleteApp(collections: Collections, viewer: Viewer, clientId: string): Promise<AppDoc> {
  const app = await ownApp(collections, viewer, clientId);
  // Grants first (a process dying in between leaves an app without grants, not tokens without an
  // app), and once more after: a grant made meanwhile goes too.
  await revokeGrantsOfApp(collections, app.clientId);
  await collections.apps.deleteOne({ _id: app._id });
  await revokeGrantsOfApp(collections, app.clientId);
  return app;
}
