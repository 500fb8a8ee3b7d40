import { VersionCandidate } from '@ostore/queue/contracts';
import type { QueueBatch, QueueMessage } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { RetryableFailure } from './candidate-failure';
import { CandidateBatchRunner, CandidateKind } from './candidate-batch.runner';
import { LifecycleMetrics } from './lifecycle.metrics';

const BUCKET_ID = '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b';
const candidate = (key: string, versionId = 'v1'): string =>
  VersionCandidate.toMessage({
    bucketId: BUCKET_ID,
    bucket: 'logs',
    key,
    parent: key.includes('/') ? key.slice(0, key.lastIndexOf('/') + 1) : '',
    name: key.slice(key.lastIndexOf('/') + 1),
    versions: [{ versionId, rules: [{ ruleId: 'r', action: 'Expiration' }] }],
    scannedAt: new Date('2026-06-01T00:00:00Z'),
    sourceHost: 'cass-1',
  });

function batchOf(values: string[], signal = new AbortController().signal) {
  const messages: QueueMessage[] = values.map((v, offset) => ({ queue: 'versions', partition: 0, offset, value: Buffer.from(v) }));
  const done: number[] = [];
  const batch: QueueBatch = { queue: 'versions', partition: 0, messages, signal, done: (m) => void done.push(m.offset) };
  return { batch, done };
}

const value = async (m: MetricsRegistry, name: string, labels: Record<string, string>) =>
  ((await m.registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0);

describe(CandidateBatchRunner.name, () => {
  let registry: MetricsRegistry;
  let metrics: LifecycleMetrics;
  const log = new JsonLogger('test', 'silent').forContext('test');
  const settings = { concurrency: 2, retryAttempts: 3, retryBackoff: { initialMs: 1, maxMs: 2 } };

  beforeEach(() => {
    registry = new MetricsRegistry('test', false);
    metrics = new LifecycleMetrics(registry);
  });

  const kind = (execute: (c: VersionCandidate) => Promise<void>): CandidateKind<VersionCandidate> => ({
    queue: 'versions',
    contract: VersionCandidate,
    keyOf: (c) => `${c.bucketId}/${c.key}`,
    execute,
  });

  it('applies every candidate and marks each done; bad messages are counted and passed over', async () => {
    const seen: string[] = [];
    const sut = new CandidateBatchRunner(settings, metrics, log);
    const { batch, done } = batchOf([candidate('a'), '{"v":1}', 'not json', candidate('b')]);

    await sut.handler(kind(async (c) => void seen.push(c.key)))(batch);

    expect(seen.sort()).toEqual(['a', 'b']);
    expect(done.sort()).toEqual([0, 1, 2, 3]);
    expect(await value(registry, 'ostore_lifecycle_bad_candidates_total', { queue: 'versions' })).toBe(2);
  });

  it('runs at most `concurrency` candidates at once, and those of one key one after the other in order', async () => {
    let running = 0;
    let peak = 0;
    const order: string[] = [];
    const sut = new CandidateBatchRunner({ ...settings, concurrency: 3 }, metrics, log);
    const { batch } = batchOf([candidate('k', 'v1'), candidate('x'), candidate('k', 'v2'), candidate('y'), candidate('z'), candidate('k', 'v3')]);

    await sut.handler(
      kind(async (c) => {
        running++;
        peak = Math.max(peak, running);
        if (c.key === 'k') order.push(`start ${c.versions[0].versionId}`);
        await new Promise((r) => setTimeout(r, 5));
        if (c.key === 'k') order.push(`end ${c.versions[0].versionId}`);
        running--;
      }),
    )(batch);

    expect(peak).toBe(3);
    expect(order).toEqual(['start v1', 'end v1', 'start v2', 'end v2', 'start v3', 'end v3']);
  });

  it('retries a retryable failure, then marks the candidate done', async () => {
    let calls = 0;
    const sut = new CandidateBatchRunner(settings, metrics, log);
    const { batch, done } = batchOf([candidate('a')]);

    await sut.handler(
      kind(async () => {
        if (++calls < 3) throw new RetryableFailure('Expiration', new Error('timeout'));
      }),
    )(batch);

    expect(calls).toBe(3);
    expect(done).toEqual([0]);
    expect(await value(registry, 'ostore_lifecycle_apply_failures_total', { action: 'Expiration' })).toBe(0);
  });

  it('hands the batch back when retries run out: failure counted, that message not done, nothing new started', async () => {
    const started: string[] = [];
    const sut = new CandidateBatchRunner({ ...settings, concurrency: 1 }, metrics, log);
    const { batch, done } = batchOf([candidate('a'), candidate('bad'), candidate('c')]);

    await expect(
      sut.handler(
        kind(async (c) => {
          started.push(c.key);
          if (c.key === 'bad') throw new RetryableFailure('Expiration', new Error('unavailable'));
        }),
      )(batch),
    ).rejects.toThrow('unavailable');

    expect(done).toEqual([0]);
    expect(started).toEqual(['a', 'bad', 'bad', 'bad']);
    expect(await value(registry, 'ostore_lifecycle_apply_failures_total', { action: 'Expiration' })).toBe(1);
  });

  it('passes over a candidate whose handler fails with an unexpected error (counted)', async () => {
    const sut = new CandidateBatchRunner(settings, metrics, log);
    const { batch, done } = batchOf([candidate('a'), candidate('b')]);

    await sut.handler(
      kind(async (c) => {
        if (c.key === 'a') throw new TypeError('bug');
      }),
    )(batch);

    expect(done.sort()).toEqual([0, 1]);
    expect(await value(registry, 'ostore_lifecycle_apply_failures_total', { action: 'unknown' })).toBe(1);
  });

  it('when the batch is aborted: running work finishes, the rest is not started and handed back', async () => {
    const abort = new AbortController();
    const started: string[] = [];
    const sut = new CandidateBatchRunner({ ...settings, concurrency: 1 }, metrics, log);
    const { batch, done } = batchOf([candidate('a'), candidate('b'), candidate('c')], abort.signal);

    const run = sut.handler(
      kind(async (c) => {
        started.push(c.key);
        if (c.key === 'a') {
          abort.abort(new Error('stopping'));
          await new Promise((r) => setTimeout(r, 5));
        }
      }),
    )(batch);

    await expect(run).rejects.toThrow('stopping');
    expect(started).toEqual(['a']);
    expect(done).toEqual([0]);
  });
});
