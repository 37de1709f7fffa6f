/**
 * Credentials never reach the banner, a log line or an error message: every text that may hold a
 * connection string (MONGODB_URI, or whatever was typed in its place) goes through
 * `redactCredentials`.
 */

/** A URI of any scheme, since a wrong one is echoed too. */
const uri = /[a-z][a-z\d+.-]*:\/\/[^\s"']*/gi;

// The password runs to the last `@` of the URI (an unescaped `@` or `/` in it is still hidden):
// hiding a little too much beats showing part of it.
const password = /^([a-z][a-z\d+.-]*:\/\/[^:/?#@]*):.*@/i;

/**
 * Options that carry a secret, or may: the driver's `tlsCertificateKeyFilePassword`,
 * `proxyPassword`, `authMechanismProperties` (an `AWS_SESSION_TOKEN`...), legacy `sslPEMKeyPassword`,
 * and any option named like a password, secret, token or key, whatever its case.
 */
const secretOption =
  /([?&;][^=&;#]*(?:pass|secret|token|key|credential|authMechanismProperties)[^=&;#]*=)[^&;#]*/gi;

/**
 * `mongodb://user:secret@host/db?proxyPassword=p` → `mongodb://user:***@host/db?proxyPassword=***`,
 * anywhere in `text`.
 */
export function redactCredentials(text: string): string {
  return text.replace(uri, (found) => found.replace(password, '$1:***@').replace(secretOption, '$1***'));
}
