import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { windowStart } from '@ostore/stats/domain';
import { StatsMetrics } from '../stats.metrics';
import { CleanupTimers, LocalStateCleanup } from './local-state.cleanup';
import { LocalWindow } from './local-usage.entity';
import { LocalStateConflictError, LocalUsageState } from './local-usage.state';

const MIN = 60_000;

/** Timers on the fake clock: `due()` fires what is due at the clock's now. */
class FakeTimers implements CleanupTimers {
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  private next = 0;
  constructor(private readonly clock: FakeClock) {}
  set(fn: () => void, ms: number): unknown {
    this.pending.set(++this.next, { at: this.clock.nowMs() + ms, fn });
    return this.next;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  due(): number {
    let fired = 0;
    for (const [h, t] of [...this.pending])
      if (t.at <= this.clock.nowMs()) {
        this.pending.delete(h);
        t.fn();
        fired++;
      }
    return fired;
  }
}

describe(LocalStateCleanup.name, () => {
  let dir: string;
  let state: LocalUsageState;
  const clock = new FakeClock(Date.UTC(2026, 11, 1, 12));
  const metrics = new StatsMetrics(new MetricsRegistry('test', false));

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ostore-local-state-'));
    state = await LocalUsageState.open(dir, { writeBufferSize: 256 * 1024 });
  });
  afterEach(async () => {
    await state.close();
    await rm(dir, { recursive: true, force: true });
  });

  const win = (bucketId: string, start: number, events: number, touchedAt = clock.nowMs()): LocalWindow => ({
    bucketId,
    bucket: `b-${bucketId}`,
    start,
    bytes: events * 10,
    objects: events,
    events,
    touchedAt,
    lease: 'L',
  });
  /** A batch as the recorder commits it: `n` new events into the bucket's current window. */
  let seq = 0;
  const commit = async (bucketId: string, n: number) => {
    const start = windowStart(clock.now()).getTime();
    const [previous] = await state.windows([{ bucketId, start }]);
    const ids = Array.from({ length: n }, () => `e-${++seq}`);
    await state.commit({
      windows: [{ window: win(bucketId, start, (previous?.events ?? 0) + n), rebuilt: false, ids, ...(previous ? { previous } : {}) }],
      marks: [],
    });
    return { start, ids };
  };

  it('deletes a window past its retention with every dedup entry, and only such windows', async () => {
    const old = await commit('b1', 2500);
    clock.advance(10 * MIN);
    const kept = await commit('b2', 3);
    const sut = new LocalStateCleanup(state, clock, { retentionMs: 5 * MIN, intervalMs: MIN, batchSize: 1000 }, metrics);
    expect(await sut.runOnce()).toEqual({ windows: 1, events: 2500, compacted: true });
    expect(await state.windows([{ bucketId: 'b1', start: old.start }, { bucketId: 'b2', start: kept.start }])).toEqual([
      undefined,
      expect.objectContaining({ events: 3 }),
    ]);
    expect(await state.seen([{ bucketId: 'b1', start: old.start, ids: old.ids }])).toEqual(old.ids.map(() => false));
    expect(await state.seen([{ bucketId: 'b2', start: kept.start, ids: kept.ids }])).toEqual([true, true, true]);
    expect(state.entries).toEqual({ windows: 1, events: 3 });
  });

  it('finishes a cascade a crash interrupted, and never deletes the entries of a window written again', async () => {
    const a = await commit('b1', 40);
    const b = await commit('b2', 40);
    for (const key of await state.expired(clock.nowMs() + 1, 10)) await state.evict(key);
    await state.close();
    state = await LocalUsageState.open(dir);
    expect(await state.pending(10)).toHaveLength(2);
    // b2's window is rebuilt by a batch before the cleanup resumes: its entries are its own again
    await state.commit({ windows: [{ window: win('b2', b.start, 40), rebuilt: true, ids: b.ids }], marks: [] });
    const sut = new LocalStateCleanup(state, clock, { retentionMs: 5 * MIN, intervalMs: MIN, batchSize: 7 }, metrics);
    expect((await sut.runOnce()).events).toBe(40);
    expect(await state.pending(10)).toEqual([]);
    expect((await state.seen([{ bucketId: 'b1', start: a.start, ids: a.ids }])).some(Boolean)).toBe(false);
    expect((await state.seen([{ bucketId: 'b2', start: b.start, ids: b.ids }])).every(Boolean)).toBe(true);
  });

  it('refuses a batch built on a window a cleanup deleted meanwhile', async () => {
    const { start } = await commit('b1', 5);
    const [previous] = await state.windows([{ bucketId: 'b1', start }]);
    for (const key of await state.expired(clock.nowMs() + 1, 10)) await state.evict(key);
    await expect(
      state.commit({ windows: [{ window: win('b1', start, 6), previous, rebuilt: false, ids: ['x'] }], marks: [] }),
    ).rejects.toThrow(LocalStateConflictError);
  });

  /**
   * Soak: 40 retention periods of steady input on the fake clock, the cleanup on its own
   * wall-clock schedule (fake timers). While a cleanup runs, batches keep committing beside it
   * (at the same fake instant, so that the fake clock does not race ahead of a real-time cleanup)
   * and each one's commit time is measured: that is the pause a cleanup can cause.
   */
  it('soak: size on disk stays flat, no entry outlives retention + one cleanup period, no batch waits long on a cleanup', async () => {
    const retentionMs = 5 * MIN;
    const intervalMs = MIN;
    const timers = new FakeTimers(clock);
    const sut = new LocalStateCleanup(state, clock, { retentionMs, intervalMs, batchSize: 500, maxLogBytes: 32 * 1024 }, metrics, () => 0.37, timers);
    sut.start();
    const tickMs = 20_000;
    const ticks = (40 * retentionMs) / tickMs;
    const sizes: number[] = [];
    let worstAgeMs = 0;
    let worstCommitMs = 0;
    let probes = 0;
    for (let t = 0; t < ticks; t++) {
      clock.advance(tickMs);
      let settled = timers.due() === 0;
      const cleaning = settled ? Promise.resolve() : sut.runOnce().finally(() => (settled = true));
      while (!settled) {
        const began = performance.now();
        await commit('probe', 10);
        probes++;
        worstCommitMs = Math.max(worstCommitMs, performance.now() - began);
      }
      await cleaning;
      for (const b of ['b1', 'b2', 'b3']) {
        const began = performance.now();
        await commit(`${b}-${Math.floor(t / 45)}`, 100); // buckets come and go
        worstCommitMs = Math.max(worstCommitMs, performance.now() - began);
      }
      const oldest = await state.oldestTouchedAt();
      if (oldest !== undefined) worstAgeMs = Math.max(worstAgeMs, clock.nowMs() - oldest);
      if (t % 15 === 14) {
        await sut.runOnce(); // let a running cleanup finish before measuring
        sizes.push(await state.sizeOnDisk());
      }
    }
    await sut.stop();
    process.stdout.write(
      `local-state soak: sizes ${sizes.map((s) => Math.round(s / 1024)).join(' ')} KiB; worst age ${worstAgeMs / 1000} s; worst batch commit ${worstCommitMs.toFixed(1)} ms; ${probes} probe batches; entries ${JSON.stringify(state.entries)}\n`,
    );
    const third = Math.floor(sizes.length / 3);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    // medians: a compaction or a log rotation in flight makes single spikes either way
    const early = median(sizes.slice(2, 2 + third));
    const late = median(sizes.slice(-third));
    // 300 events per tick (and the probes) for 600 ticks: > 180,000 dedup entries written, ~5,500 live at a time
    expect(late).toBeLessThan(early * 1.5);
    expect(worstAgeMs).toBeLessThanOrEqual(retentionMs + intervalMs + tickMs);
    expect(worstCommitMs).toBeLessThan(1000); // the stated bound of a pause (one cleanup step of 500 keys, on a loaded 2-core box)
  });
});
