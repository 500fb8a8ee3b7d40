import { UsageDelta } from '@ostore/queue/contracts';
import { UsageEvent, windowStart } from '@ostore/stats/domain';
import { StatsMetrics } from './stats.metrics';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageEventStore } from './usage-event.store';
import { CurrentUsage, UsageTotalsStore } from './usage-totals.store';

/** A usage delta from the queue as a stored event. */
export function eventOfDelta(d: UsageDelta): UsageEvent {
  return {
    bucketId: d.bucketId,
    eventId: d.eventId,
    occurredAt: d.at,
    bucket: d.bucket,
    kind: d.kind,
    bytes: d.bytes,
    ...(d.objects === undefined ? {} : { objects: d.objects }),
    source: d.source,
    sourceHost: d.sourceHost,
  };
}

/** What recording one batch did. */
export interface RecordResult {
  /** Distinct events stored for the first time. */
  stored: number;
  /** Deltas already stored (in this batch or before): counted once. */
  duplicates: number;
  /** Past their deadline: not stored. */
  expired: number;
  /** (bucket, window) aggregates recomputed. */
  windows: number;
}

interface TouchedBucket {
  bucketId: string;
  bucket: string;
  /** Events written per window start (ms). */
  windows: Map<number, number>;
}

/**
 * The stats write path for one batch of usage deltas: stores the events (idempotently), then,
 * per bucket the batch touched, recomputes the aggregates of its windows and updates its running
 * total. Replaying a batch, whole or in part, in any order, leaves every event row, TTL,
 * aggregate and total as it was: de-duplication by event id is the primary key itself. The caller
 * acknowledges the batch only after this resolves; a failure (or a crash) means the batch is
 * delivered again, which is harmless.
 *
 * Dedup hits are counted as events written minus the growth of their windows' event counts,
 * exact while one process writes a bucket (the usage topic is keyed by bucket).
 */
export class UsageRecorder {
  constructor(
    private readonly events: UsageEventStore,
    private readonly aggregates: UsageAggregateStore,
    private readonly totals: UsageTotalsStore,
    private readonly metrics: StatsMetrics,
    private readonly concurrency = 16,
  ) {}

  async record(deltas: readonly UsageDelta[]): Promise<RecordResult> {
    this.metrics.consumed.inc(deltas.length);
    const unique = new Map<string, UsageEvent>();
    for (const d of deltas) if (!unique.has(d.eventId)) unique.set(d.eventId, eventOfDelta(d));
    const { written, expired } = await this.events.write([...unique.values()]);

    const touched = new Map<string, TouchedBucket>();
    for (const e of written) {
      const t = touched.get(e.bucketId) ?? {
        bucketId: e.bucketId,
        bucket: e.bucket,
        windows: new Map<number, number>(),
      };
      const w = windowStart(e.occurredAt).getTime();
      t.windows.set(w, (t.windows.get(w) ?? 0) + 1);
      touched.set(e.bucketId, t);
    }
    let alreadyStored = 0;
    let windows = 0;
    const buckets = [...touched.values()];
    let next = 0;
    const worker = async () => {
      while (next < buckets.length) {
        const b = buckets[next++];
        const changed: Date[] = [];
        for (const [w, count] of b.windows) {
          const { previous, current } = await this.aggregates.recompute(b.bucketId, new Date(w));
          alreadyStored += Math.max(0, count - (current.events - previous.events));
          if (current.events !== previous.events) changed.push(new Date(w));
          windows++;
        }
        this.report(b.bucket, await this.totals.update(b.bucketId, changed));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, buckets.length) }, worker));

    const duplicates = deltas.length - unique.size + alreadyStored;
    this.metrics.dedupHits.inc(duplicates);
    this.metrics.expired.inc(expired.length);
    this.metrics.windowsRecomputed.inc(windows);
    return { stored: written.length - alreadyStored, duplicates, expired: expired.length, windows };
  }

  private report(bucket: string, usage: CurrentUsage): void {
    this.metrics.bucketBytes.set({ bucket }, usage.bytes);
    this.metrics.bucketObjects.set({ bucket }, usage.objects);
  }
}
