/** Width of one usage aggregate: 5 minutes (seed 000). */
export const WINDOW_MS = 5 * 60 * 1000;
/** One UTC day, the time bucket of event and aggregate partitions. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** UTC days since the epoch of an instant: the `day` of its partitions. */
export function dayOf(at: Date | number): number {
  return Math.floor(ms(at) / DAY_MS);
}

/** Start of the 5-minute window an instant falls in. Windows never straddle a day. */
export function windowStart(at: Date | number): Date {
  return new Date(windowStartMs(at));
}

/** `windowStart` in ms since the epoch, without a Date (the write path's per-event form). */
export function windowStartMs(at: Date | number): number {
  return Math.floor(ms(at) / WINDOW_MS) * WINDOW_MS;
}

/** The days whose partitions hold instants in `[from, to)`, in order. */
export function daysOf(from: Date | number, to: Date | number): number[] {
  const days: number[] = [];
  if (ms(to) <= ms(from)) return days;
  for (let d = dayOf(from); d <= dayOf(ms(to) - 1); d++) days.push(d);
  return days;
}

function ms(at: Date | number): number {
  return typeof at === 'number' ? at : at.getTime();
}

/** How long after its end a window still takes events in the normal course (delivery lag). */
export const WINDOW_CLOSE_GRACE_MS = 60_000;

/**
 * The start of the newest window closed at `now`: its end is at least `graceMs` ago. Running
 * totals advance only over closed windows; an event for a closed window (later than the grace)
 * makes the totals from that window on be rebuilt.
 */
export function lastClosedWindow(now: Date | number, graceMs = WINDOW_CLOSE_GRACE_MS): Date {
  return new Date(windowStart(ms(now) - graceMs).getTime() - WINDOW_MS);
}
