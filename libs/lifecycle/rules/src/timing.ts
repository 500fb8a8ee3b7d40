/**
 * How lifecycle counts days.
 *
 * - `aws`: AWS's arithmetic. "Amazon S3 calculates the time by adding the number of days specified
 *   in the rule to the object creation time and rounding up the resulting time to the next day
 *   midnight UTC": created 2014-01-15 10:30 UTC with Days=3 is due 2014-01-19 00:00 UTC. A sum that
 *   falls exactly on midnight is its own ceiling. Noncurrent days count the same way from the moment
 *   the version became noncurrent, DaysAfterInitiation from the upload's initiation.
 * - `debug`: a "day" lasts `dayMs` and ages are plain elapsed time, no rounding (like Ceph's
 *   `rgw_lc_debug_interval`): age = floor((now − start) / dayMs), due at start + days × dayMs.
 *
 * A `Date` in a rule is a midnight UTC and applies from that instant on, under both timings.
 */
export type LifecycleTiming = { readonly kind: 'aws' } | { readonly kind: 'debug'; readonly dayMs: number };

export const DAY_MS = 86_400_000;

/** The largest instant a JS `Date` holds; every due time is clamped to it. */
export const MAX_INSTANT_MS = 8.64e15;

export const AWS_TIMING: LifecycleTiming = Object.freeze({ kind: 'aws' });

/** A debug timing whose day lasts `dayMs` milliseconds. */
export function debugTiming(dayMs: number): LifecycleTiming {
  if (!Number.isFinite(dayMs) || dayMs <= 0)
    throw new RangeError(`debug day length must be positive, got ${dayMs}`);
  return { kind: 'debug', dayMs };
}

/**
 * The timing a deployment configures: AWS's unless a debug day length in seconds is set (> 0),
 * the counterpart of Ceph's `rgw_lc_debug_interval`.
 */
export function lifecycleTiming(debugDaySeconds?: number): LifecycleTiming {
  return debugDaySeconds !== undefined && debugDaySeconds > 0
    ? debugTiming(debugDaySeconds * 1000)
    : AWS_TIMING;
}

/** An instant given as a `Date` or as epoch milliseconds. */
export type Instant = Date | number;

/** Epoch milliseconds of an instant. */
export function toMs(instant: Instant): number {
  return typeof instant === 'number' ? instant : instant.getTime();
}

/** When an action of `days` days counted from `startMs` falls due (epoch ms). */
export function dueAfterDays(startMs: number, days: number, timing: LifecycleTiming): number {
  if (timing.kind === 'debug') return clamp(startMs + days * timing.dayMs);
  return clamp(ceilToMidnightUtc(startMs + days * DAY_MS));
}

/**
 * Whole lifecycle days from `startMs` to `nowMs`: the largest `d ≥ 1` with
 * `dueAfterDays(start, d) <= now`, else 0. Under AWS timing, midnights counted the AWS way.
 */
export function ageInDays(startMs: number, nowMs: number, timing: LifecycleTiming): number {
  if (nowMs < startMs) return 0;
  if (timing.kind === 'debug') return Math.floor((nowMs - startMs) / timing.dayMs);
  return Math.max(0, Math.floor((floorToMidnightUtc(nowMs) - startMs) / DAY_MS));
}

/** The UTC midnight at or before `ms`. */
export function floorToMidnightUtc(ms: number): number {
  return ms - mod(ms, DAY_MS);
}

/** The UTC midnight at or after `ms`. */
export function ceilToMidnightUtc(ms: number): number {
  const into = mod(ms, DAY_MS);
  return into === 0 ? ms : ms - into + DAY_MS;
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

function clamp(ms: number): number {
  return Math.min(ms, MAX_INSTANT_MS);
}
