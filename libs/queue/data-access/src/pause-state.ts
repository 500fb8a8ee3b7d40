/**
 * Pause bookkeeping of one subscription: paused by the user (all or some partitions) or backing
 * off after a failure. A user `resume` never cuts a backoff short.
 */
export class PauseState {
  private all = false;
  private readonly some = new Set<number>();
  private readonly backoffs = new Map<number, { timer: NodeJS.Timeout; failures: number }>();
  private readonly failures = new Map<number, number>();

  constructor(
    private readonly backoff: { initialMs: number; maxMs: number },
    /** Called whenever the paused set may have changed. */
    private readonly changed: () => void,
  ) {}

  isPaused(partition: number): boolean {
    return this.all || this.some.has(partition) || this.backoffs.has(partition);
  }

  pause(partitions?: number[]): void {
    if (partitions) partitions.forEach((p) => this.some.add(p));
    else this.all = true;
    this.changed();
  }

  resume(partitions?: number[]): void {
    if (partitions) partitions.forEach((p) => this.some.delete(p));
    else {
      this.all = false;
      this.some.clear();
    }
    this.changed();
  }

  /**
   * Pauses a partition after a failed handler call: `initialMs`, doubling per consecutive
   * failure up to `maxMs`. Returns the delay.
   */
  failed(partition: number): number {
    const n = (this.failures.get(partition) ?? 0) + 1;
    this.failures.set(partition, n);
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (n - 1));
    clearTimeout(this.backoffs.get(partition)?.timer);
    const timer = setTimeout(() => {
      this.backoffs.delete(partition);
      this.changed();
    }, delay);
    timer.unref();
    this.backoffs.set(partition, { timer, failures: n });
    this.changed();
    return delay;
  }

  succeeded(partition: number): void {
    this.failures.delete(partition);
  }

  clear(): void {
    for (const b of this.backoffs.values()) clearTimeout(b.timer);
    this.backoffs.clear();
  }
}
