import { Clock } from '@ostore/shared/clock';
import { nextRunAt } from '@ostore/stats/domain';
import { StatsMetrics } from '../stats.metrics';
import { LocalUsageState } from './local-usage.state';

/** Retention and cleanup cadence of the local store. */
export interface LocalCleanupSettings {
  /** A window not written for this long is deleted with its dedup entries (a later event rebuilds it from Cassandra). */
  retentionMs: number;
  /** Cleanup runs every this long, on the wall clock, from a random offset drawn once per worker. */
  intervalMs: number;
  /** Most keys one delete step removes (and so the longest a step holds up a batch's commit). */
  batchSize: number;
  /** LevelDB's own logs (`LOG`, `MANIFEST`) past this many bytes: the store is reopened to start them afresh (default 4 MiB). */
  maxLogBytes?: number;
}

/** What one cleanup run did. */
export interface CleanupRun {
  windows: number;
  events: number;
  compacted: boolean;
}

/** Timers of the cleanup schedule (real ones by default, unref'd). */
export interface CleanupTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: CleanupTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

const yieldToBatches = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Bounds the local store (seed 001): walks the timestamp index from the oldest entry, deletes
 * every window last written before `now - retention` and, as a cascade, all its dedup entries, in
 * steps of at most `batchSize` keys with the event loop released between steps (batches of the
 * consumer interleave; a step is the longest a batch can wait), then compacts so that LevelDB
 * really frees the space of the deleted keys, and keeps LevelDB's own logs bounded. Runs on a
 * wall-clock schedule with a start jitter per worker; a run in progress is never started twice;
 * a crash mid-cascade resumes it.
 */
export class LocalStateCleanup {
  private timer?: unknown;
  private running?: Promise<CleanupRun>;
  private stopped = false;
  private readonly offsetMs: number;

  constructor(
    private readonly state: LocalUsageState,
    private readonly clock: Clock,
    private readonly settings: LocalCleanupSettings,
    private readonly metrics: StatsMetrics,
    random: () => number = Math.random,
    private readonly timers: CleanupTimers = realTimers,
  ) {
    this.offsetMs = Math.floor(random() * settings.intervalMs);
  }

  /** Arms the schedule. */
  start(): void {
    this.stopped = false;
    this.arm();
  }

  /** Disarms the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One cleanup run now (joins one in progress). */
  runOnce(): Promise<CleanupRun> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.clock.nowMs();
    const delay = nextRunAt(now, this.settings.intervalMs, this.offsetMs) - now;
    this.timer = this.timers.set(() => {
      this.runOnce()
        .catch(() => undefined)
        .finally(() => this.arm());
    }, delay);
  }

  private async run(): Promise<CleanupRun> {
    const started = process.hrtime.bigint();
    const { batchSize, retentionMs } = this.settings;
    const done: CleanupRun = { windows: 0, events: 0, compacted: false };
    for (const p of await this.state.pending(batchSize)) done.events += await this.cascade(p);
    const cutoff = this.clock.nowMs() - retentionMs;
    for (;;) {
      const expired = await this.state.expired(cutoff, batchSize);
      if (expired.length === 0) break;
      for (const key of expired) await this.state.evict(key);
      done.windows += expired.length;
      this.metrics.cleanupDeleted.inc({ kind: 'window' }, expired.length);
      for (const p of await this.state.pending(batchSize)) done.events += await this.cascade(p);
      await yieldToBatches();
    }
    if (done.windows > 0 || done.events > 0) {
      await this.state.compact();
      done.compacted = true;
    }
    await this.state.rotateLogs(this.settings.maxLogBytes ?? 4 * 1024 * 1024);
    await this.report();
    this.metrics.cleanupDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    return done;
  }

  /** Deletes a pending window's dedup entries, one bounded step at a time. */
  private async cascade(pending: string): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.state.deleteEvents(pending, this.settings.batchSize);
      if (n === 0) return total;
      total += n;
      this.metrics.cleanupDeleted.inc({ kind: 'event' }, n);
      await yieldToBatches();
    }
  }

  /** Sets the local store's gauges (size on disk, entries, oldest entry age). */
  async report(): Promise<void> {
    const { windows, events } = this.state.entries;
    this.metrics.localEntries.set({ kind: 'window' }, windows);
    this.metrics.localEntries.set({ kind: 'event' }, events);
    this.metrics.localSize.set(await this.state.sizeOnDisk());
    const oldest = await this.state.oldestTouchedAt();
    this.metrics.localOldestAge.set(oldest === undefined ? 0 : Math.max(0, (this.clock.nowMs() - oldest) / 1000));
  }
}
