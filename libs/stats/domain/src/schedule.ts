/**
 * The next run of a periodic job on a wall-clock schedule (seed 001): runs fall at
 * `offsetMs + k * intervalMs` since the epoch, strictly after `nowMs`. Each worker draws its
 * `offsetMs` at random once (a start jitter in `[0, intervalMs)`), so the workers of a fleet spread
 * over the period instead of all cleaning at the same instant, and a restart keeps the cadence.
 */
export function nextRunAt(nowMs: number, intervalMs: number, offsetMs: number): number {
  const k = Math.floor((nowMs - offsetMs) / intervalMs) + 1;
  return offsetMs + k * intervalMs;
}
