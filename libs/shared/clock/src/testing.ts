import { Clock } from './clock';

/** A clock that only moves when told to. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    super();
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  override nowMs(): number {
    return this.current;
  }

  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
