/**
 * A bounded number of deletions per parent partition per window (the soft cleanup of seed 000):
 * no parent directory receives a burst of tombstones, whatever the queue delivers; a directory
 * over the budget waits for a later cycle. Entries of past windows are dropped once the map holds
 * more than `maxEntries`.
 */
export class ParentBudget {
  private readonly used = new Map<string, { windowStart: number; count: number }>();

  constructor(
    readonly perWindow: number,
    readonly windowMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** Takes one deletion for `parent` at `nowMs`; false when its budget for the window is spent. */
  take(parent: string, nowMs: number): boolean {
    let e = this.used.get(parent);
    if (e === undefined || nowMs - e.windowStart >= this.windowMs) {
      e = { windowStart: nowMs, count: 0 };
      this.used.set(parent, e);
      if (this.used.size > this.maxEntries) this.prune(nowMs);
    }
    if (e.count >= this.perWindow) return false;
    e.count++;
    return true;
  }

  /** Gives back a deletion taken for `parent` that did not happen (the directory was not empty). */
  giveBack(parent: string): void {
    const e = this.used.get(parent);
    if (e && e.count > 0) e.count--;
  }

  private prune(nowMs: number): void {
    for (const [k, e] of this.used) if (nowMs - e.windowStart >= this.windowMs) this.used.delete(k);
  }
}
