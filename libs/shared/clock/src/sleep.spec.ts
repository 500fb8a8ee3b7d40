import { sleep } from './sleep';

describe(sleep.name, () => {
  it('resolves true once the full time has passed', async () => {
    const started = performance.now();
    expect(await sleep(20)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('resolves false as soon as the signal aborts, and at once when it already has', async () => {
    const abort = new AbortController();
    const waiting = sleep(60_000, abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
    expect(await sleep(60_000, abort.signal)).toBe(false);
  });
});
