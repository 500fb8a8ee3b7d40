import type { Clock } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';

/** Re-runs the index repair of one key (VersionStore.reconcileIndex). */
export type IndexRecheck = (bucketId: string, parent: string, name: string, floor: number) => Promise<void>;

interface Pending {
  dueMs: number;
  floor: number;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * The delayed second look of an index repair (see VersionStore: "who checks the index").
 *
 * A repair of the `objects` row of a key (a permanent delete of its current version, a lifecycle
 * expiration or transition) writes at a timestamp `at` above the version it replaces, and so hides
 * the index write of every writer whose version has a vts below `at` and whose mutation was still
 * in flight when the repair read the newest version. Such a writer sent its mutation at most
 * `flightMs / 2` after its vts (a later one checks the index itself) and the mutation lands within
 * the Cassandra request timeout of being sent, so `flightMs` after `at` every one of them has landed:
 * the key is repaired once more then (a read when it agrees, as it almost always does).
 *
 * One pending re-check per key (the latest due time wins). Held in memory: a process that dies
 * within `flightMs` of a repair that raced a writer leaves the index showing an older version
 * until the next write of the key; stop() runs what is pending at once.
 */
export class IndexRechecks {
  private readonly pending = new Map<string, Pending>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly clock: Clock,
    /** How long after a repair's timestamp every mutation it might have hidden has landed (ms). */
    private readonly flightMs: number,
    private readonly recheck: IndexRecheck,
    private readonly log: ContextLogger,
  ) {}

  /** Writers whose mutation goes out later than this after their vts (µs) check the index themselves. */
  get sendBoundMicros(): number {
    return (this.flightMs / 2) * 1000;
  }

  /**
   * Notes an index write at `atMicros` that is not the writer's own version: a re-check is due
   * `flightMs` after it, unless it is below the vts of every mutation that can still have been in
   * flight at `readAtMs`, when the repair read the newest version (those took their vts at most
   * `flightMs` earlier; default: now).
   */
  afterRepair(bucketId: string, parent: string, name: string, atMicros: number, readAtMs = this.clock.nowMs()): void {
    if (atMicros < (readAtMs - this.flightMs) * 1000) return;
    const key = JSON.stringify([bucketId, parent, name]);
    const dueMs = Math.floor(atMicros / 1000) + this.flightMs;
    const cur = this.pending.get(key);
    if (cur && cur.dueMs >= dueMs) return;
    if (cur?.timer) clearTimeout(cur.timer);
    const entry: Pending = { dueMs, floor: Math.max(atMicros, cur?.floor ?? 0) };
    this.pending.set(key, entry);
    entry.timer = setTimeout(() => this.fire(key, bucketId, parent, name), Math.max(0, dueMs - this.clock.nowMs()));
    entry.timer.unref?.();
  }

  private fire(key: string, bucketId: string, parent: string, name: string): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    this.pending.delete(key);
    const run = this.recheck(bucketId, parent, name, entry.floor)
      .catch((err: unknown) =>
        this.log.warn('delayed index re-check failed; the next write of the key repairs it', { bucketId, parent, name, err: (err as Error).message }),
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Resolves once no re-check is pending or running (those scheduled meanwhile included). */
  async settled(): Promise<void> {
    while (this.pending.size > 0 || this.running.size > 0) {
      if (this.running.size > 0) await Promise.all([...this.running]);
      else await new Promise((resolve) => setTimeout(resolve, Math.min(200, this.earliestDueInMs())));
    }
  }

  /** Runs every pending re-check now (process shutdown) and waits for them. */
  async stop(): Promise<void> {
    for (const [key, entry] of [...this.pending]) {
      if (entry.timer) clearTimeout(entry.timer);
      const [bucketId, parent, name] = JSON.parse(key) as [string, string, string];
      this.fire(key, bucketId, parent, name);
    }
    await Promise.all([...this.running]);
  }

  private earliestDueInMs(): number {
    let due = Infinity;
    for (const p of this.pending.values()) due = Math.min(due, p.dueMs);
    return Math.max(1, due - this.clock.nowMs());
  }
}
