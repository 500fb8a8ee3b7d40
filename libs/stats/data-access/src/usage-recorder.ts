import { randomUUID } from 'crypto';
import { UsageDelta } from '@ostore/queue/contracts';
import { Clock } from '@ostore/shared/clock';
import {
  lastClosedWindow,
  remainingTtlSeconds,
  UsageEvent,
  UsageSums,
  WINDOW_MS,
  windowStartMs,
} from '@ostore/stats/domain';
import { LocalWindow } from './local/local-usage.entity';
import { LocalUsageState, WindowWrite } from './local/local-usage.state';
import { OwnedWindows } from './owned-windows';
import { StatsMetrics } from './stats.metrics';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageEventStore, UsageRetention } from './usage-event.store';
import { UsageTotalsStore } from './usage-totals.store';

/** A usage delta from the queue as a stored event. */
export function eventOfDelta(d: UsageDelta): UsageEvent {
  const e: UsageEvent = {
    bucketId: d.bucketId,
    eventId: d.eventId,
    occurredAt: d.at,
    bucket: d.bucket,
    kind: d.kind,
    bytes: d.bytes,
    source: d.source,
    sourceHost: d.sourceHost,
  };
  // set only when known (no spread: one object per event, built in place)
  if (d.objects !== undefined) e.objects = d.objects;
  return e;
}

/** What recording one batch did. */
export interface RecordResult {
  /** Distinct events stored for the first time. */
  stored: number;
  /** Deltas already stored (in this batch or before): counted once. */
  duplicates: number;
  /** Past their deadline: not stored. */
  expired: number;
  /** (bucket, window) aggregates the batch touched. */
  windows: number;
}

/** Where a batch sits in its usage-topic partition: its first offset and the one after its last. */
export interface BatchPosition {
  partition: number;
  firstOffset: number;
  nextOffset: number;
}

interface Touched {
  bucketId: string;
  bucket: string;
  start: number;
  events: UsageEvent[];
}

interface Built extends Touched {
  base: UsageSums;
  previous?: LocalWindow;
  rebuilt: boolean;
  fresh: UsageEvent[];
  /** A rebuilt window's ids already in Cassandra: its dedup entries beside the fresh ones (the fresh ids are appended). */
  storedIds?: string[];
}

/**
 * The stats write path for one batch of usage deltas, with its hot state local (seed 001): the
 * open windows' absolute sums and the event-id dedup entries live in the local LSM store.
 *
 * Per batch: events are de-duplicated against the local entries of their window; a window whose
 * local state cannot be trusted (missing: new, cleaned up, a lost store; or built under an older
 * lease of its partition, see PartitionMark) is first rebuilt from its raw events in Cassandra,
 * ids included, so nothing is counted twice. Then, in this order: the local state (windows, dedup
 * entries, the partition's mark) in one atomic write; the new raw events in per-partition
 * UNLOGGED batches; each touched window's absolute sums. The caller acknowledges the batch only
 * after this resolves. A crash or failure after the local write leaves a mark past the batch, so
 * its redelivery (which starts before the mark) takes a new lease and rebuilds the windows from
 * Cassandra; a replay is harmless because the raw events are keyed by event id.
 *
 * The aggregates written are then reported to the in-memory view (OwnedWindows), if any, which
 * answers current usage for the buckets of the partitions this process reads.
 *
 * Running totals are advanced (Cassandra reads) only when a window of the bucket has closed since
 * the last advance or a batch changed a window already covered by a checkpoint; otherwise the
 * bucket gauges move by the batch's new events.
 */
export class UsageRecorder {
  /** Per bucket: the first window not covered by its newest checkpoint, as of our last advance. */
  private readonly advancedTo = new Map<string, number>();
  private readonly gauges = new Map<string, UsageSums>();

  constructor(
    private readonly events: UsageEventStore,
    private readonly aggregates: UsageAggregateStore,
    private readonly totals: UsageTotalsStore,
    private readonly metrics: StatsMetrics,
    private readonly local: LocalUsageState,
    private readonly clock: Clock,
    private readonly retention: UsageRetention,
    /** The in-memory view of the aggregates written here, when current usage is answered from it. */
    private readonly owned?: OwnedWindows,
    private readonly concurrency = 16,
  ) {}

  /** Records a batch. Without a position every touched window is rebuilt from Cassandra first (safe, slower). */
  async record(deltas: readonly UsageDelta[], position?: BatchPosition): Promise<RecordResult> {
    this.metrics.consumed.inc(deltas.length);
    const now = this.clock.now();
    const unique = new Set<string>();
    let expired = 0;
    // the touched windows in order of first event, found per bucket then per start (no key string per event)
    const touched: Touched[] = [];
    const byBucket = new Map<string, Map<number, Touched>>();
    for (const d of deltas) {
      if (unique.has(d.eventId)) continue;
      if (remainingTtlSeconds(d.at, this.retention.eventsSeconds, now) === undefined) {
        expired++;
        continue;
      }
      unique.add(d.eventId);
      const start = windowStartMs(d.at);
      let windows = byBucket.get(d.bucketId);
      if (!windows) byBucket.set(d.bucketId, (windows = new Map()));
      let t = windows.get(start);
      if (!t) {
        t = { bucketId: d.bucketId, bucket: d.bucket, start, events: [] };
        windows.set(start, t);
        touched.push(t);
      }
      t.events.push(eventOfDelta(d));
    }
    const lease = await this.lease(position);
    const built = await this.build(touched, lease);
    const writes: WindowWrite[] = [];
    const fresh: UsageEvent[] = [];
    for (const b of built) {
      const sums = { bytes: b.base.bytes, objects: b.base.objects, events: b.base.events };
      const ids = b.storedIds ?? [];
      for (const e of b.fresh) {
        sums.bytes += e.bytes;
        sums.objects += e.objects ?? 0;
        sums.events += 1;
        ids.push(e.eventId);
        fresh.push(e);
      }
      const window = {
        bucketId: b.bucketId,
        bucket: b.bucket,
        start: b.start,
        ...sums,
        touchedAt: now.getTime(),
        lease,
      };
      writes.push({ window, rebuilt: b.rebuilt, ids, ...(b.previous ? { previous: b.previous } : {}) });
      b.base = sums;
    }
    await this.local.commit({
      windows: writes,
      marks: position ? [[position.partition, { nextOffset: position.nextOffset, lease }]] : [],
    });
    await this.events.write(fresh);
    const written = built.filter((b) => b.rebuilt || b.fresh.length > 0);
    await this.parallel(written, (b) => this.aggregates.write(b.bucketId, new Date(b.start), b.base));
    if (position)
      this.owned?.recorded(
        position.partition,
        lease,
        written.map((b) => ({ bucketId: b.bucketId, start: b.start, sums: b.base })),
      );
    else this.owned?.writtenElsewhere(written.map((b) => b.bucketId));
    await this.advanceTotals(built);

    const duplicates = deltas.length - expired - fresh.length;
    this.metrics.dedupHits.inc(duplicates);
    this.metrics.expired.inc(expired);
    return { stored: fresh.length, duplicates, expired, windows: built.length };
  }

  /** The partition's current lease: the stored one when this batch continues where the store's view ends, else a new one. */
  private async lease(position?: BatchPosition): Promise<string> {
    if (!position) return randomUUID();
    const mark = await this.local.mark(position.partition);
    return mark && mark.nextOffset === position.firstOffset ? mark.lease : randomUUID();
  }

  /** Each touched window's base sums (local, or rebuilt from Cassandra) and its events not yet counted. */
  private async build(touched: Touched[], lease: string): Promise<Built[]> {
    const stored = await this.local.windows(touched);
    const built: Built[] = touched.map((t, i) => {
      const w = stored[i];
      const trusted = w !== undefined && w.lease === lease;
      return {
        ...t,
        base: trusted ? w : { bytes: 0, objects: 0, events: 0 },
        rebuilt: !trusted,
        fresh: [],
        ...(w ? { previous: w } : {}),
      };
    });
    const local = built.filter((b) => !b.rebuilt);
    const seen = await this.local.seen(
      local.map((b) => ({ bucketId: b.bucketId, start: b.start, ids: b.events.map((e) => e.eventId) })),
    );
    let i = 0;
    for (const b of local) for (const e of b.events) if (!seen[i++]) b.fresh.push(e);
    await this.parallel(
      built.filter((b) => b.rebuilt),
      async (b) => {
        const stored = await this.aggregates.windowEvents(b.bucketId, new Date(b.start));
        const ids = new Set(stored.ids);
        b.base = { bytes: stored.bytes, objects: stored.objects, events: stored.events };
        b.fresh = b.events.filter((e) => !ids.has(e.eventId));
        b.storedIds = stored.ids;
        this.metrics.windowsRecomputed.inc();
      },
    );
    return built;
  }

  private async advanceTotals(built: Built[]): Promise<void> {
    const closedTo = lastClosedWindow(this.clock.now()).getTime() + WINDOW_MS;
    const byBucket = new Map<string, Built[]>();
    for (const b of built) byBucket.set(b.bucketId, [...(byBucket.get(b.bucketId) ?? []), b]);
    await this.parallel([...byBucket.values()], async (windows) => {
      const { bucketId, bucket } = windows[0];
      const changed = windows.filter((w) => w.rebuilt || w.fresh.length > 0);
      const advancedTo = this.advancedTo.get(bucketId);
      const stale =
        advancedTo === undefined ||
        advancedTo < closedTo ||
        changed.some((w) => w.rebuilt || w.start < advancedTo);
      if (stale) {
        const usage = await this.totals.update(
          bucketId,
          changed.map((w) => new Date(w.start)),
        );
        this.advancedTo.set(bucketId, closedTo);
        this.report(bucketId, bucket, usage);
        return;
      }
      const g = this.gauges.get(bucketId) ?? { bytes: 0, objects: 0, events: 0 };
      for (const w of changed)
        for (const e of w.fresh) {
          g.bytes += e.bytes;
          g.objects += e.objects ?? 0;
          g.events += 1;
        }
      this.report(bucketId, bucket, g);
    });
  }

  private report(bucketId: string, bucket: string, usage: UsageSums): void {
    this.gauges.set(bucketId, { bytes: usage.bytes, objects: usage.objects, events: usage.events });
    this.metrics.bucketBytes.set({ bucket }, usage.bytes);
    this.metrics.bucketObjects.set({ bucket }, usage.objects);
  }

  private async parallel<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) await fn(items[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, items.length) }, worker));
  }
}
