/**
 * HTML written by the service (the home page, the sign-in and consent pages): a template tag whose
 * interpolations are escaped, so no value a user or a dataset chose becomes markup.
 */

/** Text that has been escaped (or is markup we wrote): `html` inserts it as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A template whose interpolations are escaped, unless they are Html (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const piece = (v: unknown): string =>
    v instanceof Html ? v.text : Array.isArray(v) ? v.map(piece).join('') : escapeHtml(String(v ?? ''));
  return new Html(strings.reduce((out, s, i) => out + piece(values[i - 1]) + s));
}
