import { UsageDelta } from '@ostore/queue/contracts';
import { UsageEvent, windowStart } from '@ostore/stats/domain';
import { StatsMetrics } from './stats.metrics';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageEventStore } from './usage-event.store';

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

/**
 * The stats write path for one batch of usage deltas: stores the events (idempotently), then
 * recomputes the aggregate of every window the batch touched. Replaying a batch, whole or in
 * part, in any order, leaves every event row, TTL and aggregate as they were: de-duplication by
 * event id is the primary key itself. The caller acknowledges the batch only after this resolves;
 * a failure (or a crash) means the batch is delivered again, which is harmless.
 */
export class UsageRecorder {
  constructor(
    private readonly events: UsageEventStore,
    private readonly aggregates: UsageAggregateStore,
    private readonly metrics: StatsMetrics,
    private readonly concurrency = 16,
  ) {}

  async record(deltas: readonly UsageDelta[]): Promise<RecordResult> {
    this.metrics.consumed.inc(deltas.length);
    const unique = new Map<string, UsageEvent>();
    for (const d of deltas) if (!unique.has(d.eventId)) unique.set(d.eventId, eventOfDelta(d));
    const { written, expired } = await this.events.write([...unique.values()]);

    const touched = new Map<string, { bucketId: string; bucket: string; window: Date; written: number }>();
    for (const e of written) {
      const window = windowStart(e.occurredAt);
      const key = `${e.bucketId}/${window.getTime()}`;
      const t = touched.get(key) ?? { bucketId: e.bucketId, bucket: e.bucket, window, written: 0 };
      t.written++;
      touched.set(key, t);
    }
    let alreadyStored = 0;
    const windows = [...touched.values()];
    let next = 0;
    const worker = async () => {
      while (next < windows.length) {
        const w = windows[next++];
        const { previous, current } = await this.aggregates.recompute(w.bucketId, w.window);
        alreadyStored += Math.max(0, w.written - (current.events - previous.events));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, windows.length) }, worker));

    const duplicates = deltas.length - unique.size + alreadyStored;
    this.metrics.dedupHits.inc(duplicates);
    this.metrics.expired.inc(expired.length);
    this.metrics.windowsRecomputed.inc(windows.length);
    return {
      stored: written.length - alreadyStored,
      duplicates,
      expired: expired.length,
      windows: windows.length,
    };
  }
}
