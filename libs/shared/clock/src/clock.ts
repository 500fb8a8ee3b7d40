/**
 * The only source of "now" for anything that decides by time (lifecycle days, TTLs, 5-minute windows).
 * Inject it; never call Date.now() in such code, so tests can move time.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }

  /**
   * Milliseconds on a clock that only moves forward (its zero is arbitrary): for how long
   * something lasts, such as a cache entry's TTL, which a wall clock stepped back would stretch.
   */
  monotonicMs(): number {
    return performance.now();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  override nowMs(): number {
    return Date.now();
  }
}
