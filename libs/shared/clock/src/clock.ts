/**
 * The only source of "now" for anything that decides by time (lifecycle days, TTLs, 5-minute windows).
 * Inject it; never call Date.now() in such code, so tests can move time.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
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
