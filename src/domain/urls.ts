/** Destination URLs given by callers: absolute http(s) URLs. (Where they may point is the egress guard's job.) */
import { DomainError } from './errors.js';

/**
 * `new URL` silently drops or rewrites these (it strips leading and trailing C0 controls and
 * spaces, removes tabs and newlines, turns a NUL or an unpaired surrogate into an escape), so the
 * URL stored would not be the one the caller gave: refuse them instead.
 */
const rewrittenCharacters = /[\s\p{Cc}\p{Cs}]/u;

export function requireDestinationUrl(value: string, parameter: string): string {
  if (rewrittenCharacters.test(value))
    throw new DomainError(
      'BAD_USER_INPUT',
      `${parameter} must not contain whitespace, control characters or unpaired surrogates.`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('BAD_USER_INPUT', `${parameter} must be an absolute http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DomainError('BAD_USER_INPUT', `${parameter} must use http or https.`);
  }
  if (url.username || url.password)
    throw new DomainError('BAD_USER_INPUT', `${parameter} must not carry credentials.`);
  return url.toString();
}
