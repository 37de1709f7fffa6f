/**
 * Credentials never reach the banner, a log line or an error message: every text that may hold a
 * connection string (MONGODB_URI, or whatever was typed in its place) goes through
 * `redactCredentials`.
 */

// Any scheme, since a wrong one is echoed too. The password runs to the last `@` of the word (an
// unescaped `@` or `/` in it is still hidden): hiding a little too much beats showing part of it.
const password = /([a-z][a-z\d+.-]*:\/\/[^:/?#@\s"']*):[^\s"']*@/gi;

/** `mongodb://user:secret@host/db` → `mongodb://user:***@host/db`, anywhere in `text`. */
export function redactCredentials(text: string): string {
  return text.replace(password, '$1:***@');
}
