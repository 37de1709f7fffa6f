/** Destination URLs given by callers: absolute http(s) URLs. (Where they may point is the egress guard's job.) */
import { DomainError } from './errors.js';

export function requireDestinationUrl(value: string, parameter: string): string {
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
