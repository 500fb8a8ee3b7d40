/**
 * Waits `ms` milliseconds, or less when `signal` aborts; resolves true when the full time passed,
 * false when it was cut short (never rejects). The project's one abortable sleep: backoffs,
 * pacing and poll intervals. It measures a duration with a timer and never reads the time of
 * day: whatever decides by the time of day (lifecycle days, TTLs, windows) reads the injected
 * Clock instead, so that tests can move it.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (full: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(full);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
