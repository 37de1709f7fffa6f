/**
 * The 5xx answers as the service itself counted them (`http_requests_total` on its /metrics), a
 * check beside the statuses the soak's clients saw.
 */

/** Sum of `http_requests_total` with a 5xx status, and the lines it was read from. */
export async function fiveHundredsCounted(url: string): Promise<{ total: number; lines: string[] }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n').filter((l) => /^http_requests_total\{.*status="5\d\d"/.test(l));
  return { total: lines.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0), lines };
}
