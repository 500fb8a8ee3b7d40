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
    errors.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const errors: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const log = { info: () => undefined, warn: () => undefined, error: (msg: string, fields?: Record<string, unknown>) => errors.push({ msg, fields }) };
  const make = (spool: UsageDeltaSpool, settings: Partial<UsageDeltaSettings> = {}) =>
    new UsageDeltaPublisher(
      sink,
      clock,
      { source: 'gateway', sourceHost: 'gw-1', batchMax: 3, lingerMs: 100, bufferMax: 5, retryBackoff: { initialMs: 1000, maxMs: 4000 }, spool, ...settings },
      new UsageDeltaMetrics(registry),
      log,
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

  it("exports the spool's backlog, also an earlier run's, down to 0 once it is sent", async () => {
    const first = make(new FileUsageDeltaSpool(dir, clock));
    sink.failing = true;
    for (let i = 1; i <= 12; i++) first.record(store(i));
    await timers.advance(100);
    await eventually('the backlog on the gauge', async () => (await metric('ostore_usage_spool_deltas')) === 7);
    const closed = first.close(0);
    await timers.advance(0);
    await closed;
    expect(await metric('ostore_usage_spool_deltas')).toBe(12); // the buffer's 5 spooled at the deadline

    registry = new MetricsRegistry('test', false);
    make(new FileUsageDeltaSpool(dir, clock)); // the next run counts what it finds
    await eventually('the earlier backlog counted', async () => (await metric('ostore_usage_spool_deltas')) === 12);
    sink.failing = false;
    await timers.advance(4000);
    await eventually('the backlog sent', async () => (await segments()).length === 0 && (await metric('ostore_usage_spool_deltas')) === 0);
    expect(sink.deltas).toHaveLength(12);
  });

  it("sends the spool's segments at the shutdown too, not only the buffer (a pod's spool may go with it)", async () => {
    const first = make(new FileUsageDeltaSpool(dir, clock));
    sink.failing = true;
    for (let i = 1; i <= 4; i++) first.record(store(i));
    const closed = first.close(0);
    await timers.advance(0);
    await closed;
    expect(await segments()).toHaveLength(2);

    sink.failing = false;
    const second = make(new FileUsageDeltaSpool(dir, clock));
    await second.close(10_000); // before its start-up resend ran: the close sends the segments itself
    expect(sink.deltas.map((d) => d.bytes).sort()).toEqual([1, 2, 3, 4]);
    expect(await segments()).toEqual([]);
    expect(errors.filter((e) => e.msg.startsWith('usage deltas left in the spool'))).toHaveLength(1); // the first close's
  });

  it('logs and exports what the shutdown deadline leaves in the spool', async () => {
    const sut = make(new FileUsageDeltaSpool(dir, clock));
    sink.failing = true;
    for (let i = 1; i <= 9; i++) sut.record(store(i));
    await timers.advance(100);
    const closed = sut.close(2500);
    await timers.advance(2500);
    await closed;
    expect(errors.find((e) => e.msg.startsWith('usage deltas left in the spool at shutdown'))?.fields).toEqual({ count: 9, timeoutMs: 2500 });
    expect(await metric('ostore_usage_spool_deltas')).toBe(9);
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
