/**
 * The sum of every sample of the metrics whose lines start with `name` (all label sets, and
 * `_bucket`/`_sum`/`_count` too when `name` is their prefix), read from `<baseUrl>/metrics`.
 */
export async function metricSum(baseUrl: string, name: string): Promise<number> {
  // bounded: a scrape that never answers fails the probe (waitFor retries it) instead of hanging the test
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
