import { Clock } from './clock';

/**
 * A clock that only moves when told to. Its monotonic clock moves with `advance` and with a
 * `set` forward, not with a `set` backward (a wall clock stepped back).
 */
export class FakeClock extends Clock {
  private current: number;
  private monotonic = 0;

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

  override monotonicMs(): number {
    return this.monotonic;
  }

  set(to: Date | number): void {
    const next = typeof to === 'number' ? to : to.getTime();
    this.monotonic += Math.max(0, next - this.current);
    this.current = next;
  }

  advance(ms: number): void {
    this.current += ms;
    this.monotonic += Math.max(0, ms);
  }
}
