/** Where the authorization server answers (docs/api/connected-apps.md), and its one scope. */
export const OAUTH_PATH = '/external/v1/oauth2';
/** RFC 8414 metadata, where OAuth clients (MCP clients among them) look for it. */
export const METADATA_PATH = '/.well-known/oauth-authorization-server';
/** The sign-in and consent pages of one authorization request. */
export const INTERACTION_PATH = `${OAUTH_PATH}/interaction/`;
export const SCOPE = 'public_api';
/** Where the organisation's identity provider sends a person back after signing in (registered there). */
export const UPSTREAM_CALLBACK_PATH = `${OAUTH_PATH}/callback`;
