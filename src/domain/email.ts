/** Email addresses: the one pattern both doors accept, and the domain part the rules compare. */

/**
 * Something, an @, something with a dot: what both doors accept as an email address. No
 * whitespace, control characters (NUL, DEL, C1) or unpaired surrogates, which would be stored as
 * given and break whatever later prints or compares the address.
 */
export const EMAIL_PATTERN = /^[^\s@\p{Cc}\p{Cs}]+@[^\s@\p{Cc}\p{Cs}]+\.[^\s@\p{Cc}\p{Cs}]+$/u;

/**
 * The longest address both doors accept: RFC 5321's 256-octet path less its angle brackets. Longer
 * ones are refused as input rather than met later as an index key no store should have to hold.
 */
export const EMAIL_MAX_LENGTH = 254;

/** The lower-case domain of an address; null without one. */
export function emailDomain(email: string | null | undefined): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at < 0 ? null : email.slice(at + 1).toLowerCase();
}
