/**
 * What the soak's answers were: a count by kind of request and status, each kind with the status a
 * correct service answers, and the first few bodies of unexpected answers (for the report).
 */

export class Tally {
  readonly byKind = new Map<string, { expect: number; statuses: Map<number, number> }>();
  readonly samples: string[] = [];

  count(kind: string, expect: number, status: number, body: string): void {
    let row = this.byKind.get(kind);
    if (!row) {
      row = { expect, statuses: new Map() };
      this.byKind.set(kind, row);
    }
    row.statuses.set(status, (row.statuses.get(status) ?? 0) + 1);
    // The first answer of each unexpected (kind, status).
    if (status !== expect && row.statuses.get(status) === 1 && this.samples.length < 10)
      this.samples.push(
        `${kind}: ${status} (expected ${expect}): ${body.slice(0, 300).replace(/\s+/g, ' ')}`,
      );
  }

  /** A line per kind (its statuses and counts, `!` before an unexpected one), then the samples. */
  lines(): string[] {
    const lines: string[] = [];
    for (const [kind, { expect, statuses }] of this.byKind) {
      const counts = [...statuses].sort(([a], [b]) => a - b);
      const n = counts.reduce((s, [, c]) => s + c, 0);
      const text = counts.map(([s, c]) => `${s === expect ? '' : '!'}${s} x ${c}`).join(', ');
      lines.push(`${kind.padEnd(32)} ${String(n).padStart(6)}   ${text}`);
    }
    for (const sample of this.samples) lines.push(`unexpected: ${sample}`);
    return lines;
  }

  total(predicate: (status: number, expect: number) => boolean): number {
    let n = 0;
    for (const { expect, statuses } of this.byKind.values())
      for (const [status, count] of statuses) if (predicate(status, expect)) n += count;
    return n;
  }
}
