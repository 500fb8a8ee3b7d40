import { mkdtemp, readdir, rm, writeFile } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { FakeUsageSink, ManualTimers } from '../testing/usage-publisher.fakes';
import { UsageDeltaMetrics } from './usage-delta.metrics';
import { UsageChange, UsageDeltaPublisher, UsageDeltaSettings } from './usage-delta.publisher';
import { FileUsageDeltaSpool, UsageDeltaSpool } from './usage-delta.spool';

const BUCKET = '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b';

/** Waits (real time, file I/O) until `cond` holds, failing after 10 s. */
async function eventually(what: string, cond: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe(FileUsageDeltaSpool.name, () => {
  let dir: string;
  let clock: FakeClock;
  let timers: ManualTimers;
  let sink: FakeUsageSink;
  let registry: MetricsRegistry;
  let ids: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ostore-usage-spool-'));
    clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
    timers = new ManualTimers();
    sink = new FakeUsageSink();
    registry = new MetricsRegistry('test', false);
    ids = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const make = (spool: UsageDeltaSpool, settings: Partial<UsageDeltaSettings> = {}) =>
    new UsageDeltaPublisher(
      sink,
      clock,
      { source: 'gateway', sourceHost: 'gw-1', batchMax: 3, lingerMs: 100, bufferMax: 5, retryBackoff: { initialMs: 1000, maxMs: 4000 }, spool, ...settings },
      new UsageDeltaMetrics(registry),
      undefined,
      timers,
      () => `evt-${++ids}`,
    );
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const values = (await registry.registry.getSingleMetric(name)!.get()).values;
    return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((s, v) => s + v.value, 0);
  };
  const store = (bytes: number): UsageChange => ({ bucketId: BUCKET, bucket: 'photos', kind: 'store', bytes });
  const segments = async () => (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));

  it('while Kafka is down, spools what the buffer cannot hold and sends it once Kafka is back: nothing lost', async () => {
    const sut = make(new FileUsageDeltaSpool(dir, clock));
    sink.failing = true;
    for (let i = 1; i <= 12; i++) sut.record(store(i));
    expect(sut.buffered).toBe(5);
    await timers.advance(100); // the overflow's linger: 7 deltas in segments of at most 3
    await eventually('the overflow spooled', async () => (await metric('ostore_usage_deltas_spooled_total')) === 7);
    expect(await segments()).toHaveLength(3);
    expect(await metric('ostore_usage_deltas_dropped_total')).toBe(0);

    sink.failing = false;
    await timers.advance(4000);
    await eventually('every delta sent', async () => sink.deltas.length === 12 && (await segments()).length === 0);

    expect(sink.deltas.map((d) => d.bytes).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(sink.deltas.map((d) => d.eventId)).size).toBe(12);
    expect(await segments()).toEqual([]);
    expect(await metric('ostore_usage_deltas_resent_total')).toBe(7);
    expect(await metric('ostore_usage_deltas_dropped_total')).toBe(0);
  });

  it('spools what the shutdown deadline leaves, and a later run sends it', async () => {
    const first = make(new FileUsageDeltaSpool(dir, clock));
    sink.failing = true;
    for (let i = 1; i <= 4; i++) first.record(store(i));
    const closed = first.close(2500);
    await timers.advance(2500);
    await closed;
    first.record(store(5)); // after the close: spooled too
    await eventually('the rest spooled', async () => (await metric('ostore_usage_deltas_spooled_total')) === 5);
    expect(await metric('ostore_usage_deltas_dropped_total')).toBe(0);

    sink.failing = false;
    const sent = sink.deltas.length;
    make(new FileUsageDeltaSpool(dir, clock)); // the next run on the same spool
    await timers.advance(0);
    await eventually('the spool sent', async () => sink.deltas.length === sent + 5 && (await segments()).length === 0);
    expect(sink.deltas.slice(sent).map((d) => d.bytes).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await segments()).toEqual([]);
  });

  it('counts as lost only what the spool cannot write', async () => {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, '');
    const sut = make(new FileUsageDeltaSpool(join(file, 'spool'), clock));
    sink.failing = true;
    for (let i = 1; i <= 8; i++) sut.record(store(i));
    await timers.advance(100);
    await eventually('the failed spool counted', async () => (await metric('ostore_usage_deltas_dropped_total', { reason: 'spool_failed' })) === 3);
    expect(await metric('ostore_usage_deltas_spooled_total')).toBe(0);
  });
});
