import { UsageSums } from '@ostore/stats/domain';

/**
 * Which usage-topic partitions this process reads now, and a number that changes whenever they may
 * have changed hands (the consumer group's generation as this member saw it). Absent numbers mean
 * "unknown": nothing is answered from memory then.
 */
export interface PartitionOwnership {
  generation(): number | undefined;
  owns(partition: number): boolean;
}

/** One window's absolute sums as the recorder wrote them to `usage_aggregates`. */
export interface WrittenWindow {
  bucketId: string;
  start: number;
  sums: UsageSums;
}

interface BucketView {
  partition: number;
  /** Window start → absolute sums; every window at or after `completeFrom` with events is here. */
  windows: Map<number, UsageSums>;
  /** Set by a seed from Cassandra: for windows in [completeFrom, completeTo) the map is the whole truth. */
  completeFrom?: number;
  completeTo?: number;
  /** Bumped by every recorded change: a seed read across one is not kept. */
  changes: number;
}

interface PartitionView {
  lease: string;
  generation: number;
  buckets: Set<string>;
}

/** What a seed needs to know it is still valid when its read returns. */
export interface SeedToken {
  bucketId: string;
  changes: number;
  generation: number;
  lease: string;
}

/**
 * The 5-minute aggregates of the buckets whose usage-topic partitions this stats process reads,
 * kept in memory so that current usage is answered without a Cassandra read.
 *
 * Why it stays exact: a bucket's deltas all travel in one partition (the topic is keyed by bucket
 * id), and a partition has one reader in the group, so while this process holds a partition it is
 * the only writer of its buckets' aggregates. The recorder reports every aggregate it wrote (after
 * the write resolved), so the memory equals the table for those windows. A bucket's older windows
 * come from one read of the table (a seed), kept only if no write of the bucket happened while it
 * was read. Everything of a partition is forgotten when its reader may have changed: a new group
 * generation (another member may have written while it held the partition), a new lease of the
 * recorder (the batch did not continue where this process left off), or the partition not being
 * assigned here now. Then the reader falls back to Cassandra and seeds again.
 *
 * Bounded: at most `maxBuckets` buckets; windows before the cut the reader asked for are dropped.
 */
export class OwnedWindows {
  private readonly buckets = new Map<string, BucketView>();
  private readonly partitions = new Map<number, PartitionView>();

  constructor(
    private readonly ownership: PartitionOwnership,
    private readonly maxBuckets = 100_000,
  ) {}

  /** After a batch of `partition` under `lease` wrote these windows' absolute sums. */
  recorded(partition: number, lease: string, windows: readonly WrittenWindow[]): void {
    const generation = this.ownership.generation();
    let p = this.partitions.get(partition);
    if (p && (p.lease !== lease || p.generation !== generation)) {
      this.forget(partition);
      p = undefined;
    }
    if (generation === undefined) return;
    if (!p) {
      p = { lease, generation, buckets: new Set() };
      this.partitions.set(partition, p);
    }
    for (const w of windows) {
      let b = this.buckets.get(w.bucketId);
      if (b && b.partition !== partition) {
        // moved between partitions (the topic was resized): trust neither view
        this.drop(w.bucketId);
        b = undefined;
      }
      if (!b) {
        if (this.buckets.size >= this.maxBuckets) continue;
        b = { partition, windows: new Map(), changes: 0 };
        this.buckets.set(w.bucketId, b);
        p.buckets.add(w.bucketId);
      }
      b.windows.set(w.start, { ...w.sums });
      b.changes++;
    }
  }

  /**
   * The sums of the bucket's aggregates of windows in [cutMs, toMs), or undefined when memory
   * cannot answer exactly.
   */
  since(bucketId: string, cutMs: number, toMs: number): UsageSums | undefined {
    const b = this.buckets.get(bucketId);
    if (!b || b.completeFrom === undefined || b.completeTo === undefined) return undefined;
    if (b.completeFrom > cutMs || b.completeTo < toMs || !this.current(b.partition)) return undefined;
    const out: UsageSums = { bytes: 0, objects: 0, events: 0 };
    // the cut only moves forward: windows before it are dropped, and so is the claim to know them
    b.completeFrom = cutMs;
    for (const [start, s] of b.windows) {
      if (start < cutMs) {
        b.windows.delete(start);
        continue;
      }
      if (start >= toMs) continue;
      out.bytes += s.bytes;
      out.objects += s.objects;
      out.events += s.events;
    }
    return out;
  }

  /** Taken before a seed's read; undefined when the bucket is not one of ours now (no seed then). */
  seedToken(bucketId: string): SeedToken | undefined {
    const b = this.buckets.get(bucketId);
    const p = b && this.partitions.get(b.partition);
    if (!b || !p || !this.current(b.partition)) return undefined;
    return { bucketId, changes: b.changes, generation: p.generation, lease: p.lease };
  }

  /**
   * Keeps a read of the bucket's aggregates of windows in [fromMs, toMs) (every window with
   * events), taken after `token`, when nothing changed meanwhile. Returns whether it was kept.
   */
  seed(
    token: SeedToken,
    fromMs: number,
    toMs: number,
    windows: readonly { start: number; sums: UsageSums }[],
  ): boolean {
    const b = this.buckets.get(token.bucketId);
    const p = b && this.partitions.get(b.partition);
    if (
      !b ||
      !p ||
      b.changes !== token.changes ||
      p.generation !== token.generation ||
      p.lease !== token.lease
    )
      return false;
    if (!this.current(b.partition)) return false;
    b.windows = new Map(
      windows.filter((w) => w.start >= fromMs && w.start < toMs).map((w) => [w.start, { ...w.sums }]),
    );
    b.completeFrom = fromMs;
    b.completeTo = toMs;
    return true;
  }

  /** Aggregates of these buckets were written outside a known partition (a record without position): forget them. */
  writtenElsewhere(bucketIds: Iterable<string>): void {
    for (const id of bucketIds) this.drop(id);
  }

  /** Buckets held in memory now (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  private current(partition: number): boolean {
    const p = this.partitions.get(partition);
    const generation = this.ownership.generation();
    if (p && generation !== undefined && p.generation === generation && this.ownership.owns(partition))
      return true;
    if (p) this.forget(partition);
    return false;
  }

  private forget(partition: number): void {
    for (const id of this.partitions.get(partition)?.buckets ?? []) this.buckets.delete(id);
    this.partitions.delete(partition);
  }

  private drop(bucketId: string): void {
    const b = this.buckets.get(bucketId);
    if (b) this.partitions.get(b.partition)?.buckets.delete(bucketId);
    this.buckets.delete(bucketId);
  }
}
