import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { QueueLog } from '../queue';
import { UsageDeltaMetrics } from './usage-delta.metrics';
import { FakeUsageSink as FakeSink, ManualTimers, settle } from '../testing/usage-publisher.fakes';
import { UsageChange, UsageDeltaPublisher, UsageDeltaSettings } from './usage-delta.publisher';

const BUCKET_A = '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b';
const BUCKET_B = '9a0e7c1d-1b2c-4d3e-8f4a-5b6c7d8e9f00';

describe(UsageDeltaPublisher.name, () => {
  let clock: FakeClock;
  let timers: ManualTimers;
  let sink: FakeSink;
  let registry: MetricsRegistry;
  let logs: { level: string; msg: string }[];
  let ids: number;

  const log: QueueLog = {
    info: (msg) => logs.push({ level: 'info', msg }),
    warn: (msg) => logs.push({ level: 'warn', msg }),
    error: (msg) => logs.push({ level: 'error', msg }),
  };
  const make = (settings: Partial<UsageDeltaSettings> = {}) =>
    new UsageDeltaPublisher(
      sink,
      clock,
      { source: 'gateway', sourceHost: 'gw-1', batchMax: 3, lingerMs: 100, bufferMax: 10, retryBackoff: { initialMs: 1000, maxMs: 4000 }, ...settings },
      new UsageDeltaMetrics(registry),
      log,
      timers,
      () => `evt-${++ids}`,
    );
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const values = (await registry.registry.getSingleMetric(name)!.get()).values;
    return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((s, v) => s + v.value, 0);
  };
  const store = (bytes: number, bucketId = BUCKET_A): UsageChange => ({ bucketId, bucket: bucketId === BUCKET_A ? 'photos' : 'logs', kind: 'store', bytes });

  beforeEach(() => {
    clock = new FakeClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    timers = new ManualTimers();
    sink = new FakeSink();
    registry = new MetricsRegistry('test', false);
    logs = [];
    ids = 0;
  });

  it('buffers without sending, then sends one batch, keyed by bucket, after the linger time', async () => {
    const sut = make({ batchMax: 10 });
    sut.record(store(100));
    clock.advance(5);
    sut.record({ bucketId: BUCKET_B, bucket: 'logs', kind: 'remove', bytes: -40, objects: -1 });
    sut.record({ bucketId: BUCKET_A, bucket: 'photos', kind: 'copy', bytes: 7 });
    await timers.advance(99);
    expect(sink.calls).toBe(0);
    expect(sut.buffered).toBe(3);
    expect(await metric('ostore_usage_buffered_deltas')).toBe(3);

    await timers.advance(1);

    expect(sink.batches).toHaveLength(1);
    expect(sink.batches[0].map((m) => m.key)).toEqual([BUCKET_A, BUCKET_B, BUCKET_A]);
    expect(sink.deltas).toEqual([
      { bucketId: BUCKET_A, bucket: 'photos', kind: 'store', bytes: 100, at: new Date('2026-03-01T12:00:00.000Z'), source: 'gateway', sourceHost: 'gw-1', eventId: 'evt-1' },
      { bucketId: BUCKET_B, bucket: 'logs', kind: 'remove', bytes: -40, objects: -1, at: new Date('2026-03-01T12:00:00.005Z'), source: 'gateway', sourceHost: 'gw-1', eventId: 'evt-2' },
      { bucketId: BUCKET_A, bucket: 'photos', kind: 'copy', bytes: 7, at: new Date('2026-03-01T12:00:00.005Z'), source: 'gateway', sourceHost: 'gw-1', eventId: 'evt-3' },
    ]);
    expect(sut.buffered).toBe(0);
    expect(await metric('ostore_usage_deltas_published_total')).toBe(3);
    expect(await metric('ostore_usage_buffered_deltas')).toBe(0);
  });

  it('keeps an event id the caller derived (a removal racing removers may both report) and draws one otherwise', async () => {
    const sut = make({ batchMax: 2 });
    sut.record({ bucketId: BUCKET_A, bucket: 'photos', kind: 'remove', bytes: -40, objects: -1, eventId: 'rm:0f9e2d3c' });
    sut.record(store(5));
    await timers.advance(0);
    expect(sink.deltas.map((d) => d.eventId)).toEqual(['rm:0f9e2d3c', 'evt-1']);
  });

  it('sends a full batch at once, without waiting for the linger time', async () => {
    const sut = make({ batchMax: 3 });
    for (let i = 1; i <= 7; i++) sut.record(store(i));
    await timers.advance(0);
    expect(sink.batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(sink.deltas.map((d) => d.bytes)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('has one send in flight at a time, and keeps the order of deltas across sends', async () => {
    const sut = make({ batchMax: 2 });
    sink.hold();
    sut.record(store(1));
    sut.record(store(2));
    await timers.advance(0);
    expect(sink.calls).toBe(1);
    for (let i = 3; i <= 8; i++) sut.record(store(i));
    await timers.advance(1000);
    expect(sink.calls).toBe(1);
    expect(sut.buffered).toBe(8);

    sink.release();
    await timers.advance(0);

    expect(sink.maxInFlight).toBe(1);
    expect(sink.batches.map((b) => b.length)).toEqual([2, 2, 2, 2]);
    expect(sink.deltas.map((d) => d.bytes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('while Kafka is down: record() still returns at once, the buffer is bounded, the overflow is dropped and counted, the batch retried with backoff', async () => {
    const sut = make({ batchMax: 3, bufferMax: 5 });
    sink.failing = true;
    for (let i = 1; i <= 8; i++) expect(sut.record(store(i))).toBeUndefined();
    expect(sut.buffered).toBe(5);
    expect(await metric('ostore_usage_deltas_dropped_total', { reason: 'buffer_full' })).toBe(3);
    expect(logs.filter((l) => l.msg.includes('buffer full'))).toHaveLength(1);

    await timers.advance(0);
    expect(sink.calls).toBe(1);
    expect(await metric('ostore_usage_publish_errors_total')).toBe(1);
    // backoff 1 s, 2 s, 4 s, 4 s (max)
    await timers.advance(999);
    expect(sink.calls).toBe(1);
    await timers.advance(1);
    expect(sink.calls).toBe(2);
    await timers.advance(2000);
    expect(sink.calls).toBe(3);
    await timers.advance(4000);
    await timers.advance(4000);
    expect(sink.calls).toBe(5);
    expect(await metric('ostore_usage_publish_errors_total')).toBe(5);
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(await metric('ostore_usage_buffered_deltas')).toBe(5);

    sink.failing = false;
    await timers.advance(4000);

    expect(sink.deltas.map((d) => d.bytes)).toEqual([1, 2, 3, 4, 5]);
    expect(sink.batches.map((b) => b.length)).toEqual([3, 2]);
    expect(sut.buffered).toBe(0);
    expect(await metric('ostore_usage_deltas_published_total')).toBe(5);
    expect(logs.some((l) => l.msg === 'usage deltas published again')).toBe(true);

    // recovered: new deltas are accepted and go after the linger time
    sut.record(store(9));
    await timers.advance(100);
    expect(sink.deltas.map((d) => d.bytes)).toEqual([1, 2, 3, 4, 5, 9]);
    expect(await metric('ostore_usage_deltas_dropped_total')).toBe(3);
  });

  it('drops a delta its contract refuses without throwing, and sends the others', async () => {
    const sut = make();
    expect(() => sut.record({ ...store(1), bucketId: 'not-a-uuid' })).not.toThrow();
    expect(() => sut.record({ ...store(1), kind: 'remove', bytes: 5 })).not.toThrow();
    sut.record(store(2));
    await timers.advance(100);
    expect(sink.deltas.map((d) => d.bytes)).toEqual([2]);
    expect(await metric('ostore_usage_deltas_dropped_total', { reason: 'invalid' })).toBe(2);
  });

  it('close() sends what is buffered at once, waits for a running send, then refuses new deltas', async () => {
    const sut = make({ batchMax: 2 });
    sink.hold();
    sut.record(store(1));
    sut.record(store(2));
    await timers.advance(0);
    sut.record(store(3));

    const closed = sut.close(5000);
    await settle();
    sut.record(store(4)); // a late request finishing during the close: still sent
    sink.release();
    await closed;

    expect(sink.deltas.map((d) => d.bytes)).toEqual([1, 2, 3, 4]);
    expect(sink.maxInFlight).toBe(1);
    sut.record(store(5));
    expect(await metric('ostore_usage_deltas_dropped_total', { reason: 'closed' })).toBe(1);
    await timers.advance(10_000);
    expect(sink.deltas).toHaveLength(4);
  });

  it('close() gives up at its deadline while Kafka is down, counting what it drops', async () => {
    const sut = make({ batchMax: 3 });
    sink.failing = true;
    for (let i = 1; i <= 4; i++) sut.record(store(i));
    const closed = sut.close(2500);
    await timers.advance(2500);
    await closed;

    expect(sink.calls).toBeGreaterThanOrEqual(2); // sent at once, retried with backoff
    expect(await metric('ostore_usage_deltas_dropped_total', { reason: 'shutdown' })).toBe(4);
    expect(await metric('ostore_usage_buffered_deltas')).toBe(0);
    expect(logs.some((l) => l.level === 'error' && l.msg.includes('shutdown deadline'))).toBe(true);
    const calls = sink.calls;
    sink.failing = false;
    await timers.advance(60_000);
    expect(sink.calls).toBe(calls);
  });

  it('rejects settings that cannot work', () => {
    expect(() => make({ batchMax: 0 })).toThrow(/batchMax/);
    expect(() => make({ batchMax: 20, bufferMax: 10 })).toThrow(/bufferMax/);
  });
});
