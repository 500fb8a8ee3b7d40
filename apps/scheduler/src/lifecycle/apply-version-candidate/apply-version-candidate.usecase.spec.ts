import { errors } from 'cassandra-driver';
import type { VersionCandidate } from '@ostore/queue/contracts';
import type { ApplyResult, KeyTarget, LifecycleApplier, VersionTarget } from '@ostore/s3/core/lifecycle';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { RetryableFailure } from '../candidate-failure';
import { LifecycleMetrics } from '../lifecycle.metrics';
import { ApplyVersionCandidate } from './apply-version-candidate.usecase';

const candidate: VersionCandidate = {
  bucketId: '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b',
  bucket: 'logs',
  key: 'a/b',
  parent: 'a/',
  name: 'b',
  versions: [
    { versionId: 'v1', rules: [{ ruleId: 'old', action: 'NoncurrentVersionExpiration' }] },
    { versionId: 'v2', rules: [{ ruleId: 'old', action: 'NoncurrentVersionExpiration' }] },
    { versionId: 'v3', rules: [{ ruleId: 'cold', action: 'Transition' }] },
  ],
  scannedAt: new Date('2026-06-01T00:00:00Z'),
  sourceHost: 'cass-1',
};

const count = async (m: MetricsRegistry, name: string, labels: Record<string, string>) =>
  ((await m.registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0);

describe(ApplyVersionCandidate.name, () => {
  let registry: MetricsRegistry;
  const log = new JsonLogger('test', 'silent').forContext('test');

  beforeEach(() => (registry = new MetricsRegistry('test', false)));

  const sutWith = (
    apply: (t: VersionTarget) => Promise<ApplyResult>,
    converge: (t: KeyTarget) => Promise<ApplyResult> = async () => ({ outcome: 'applied', action: 'converge-nulls', s3Action: 'ConvergeNulls' }),
  ) => {
    const applier = { applyVersion: jest.fn(apply), convergeStaleNulls: jest.fn(converge) };
    return { applier, sut: new ApplyVersionCandidate(applier as unknown as LifecycleApplier, new LifecycleMetrics(registry), log) };
  };

  it('applies each version it names and counts outcomes by AWS action and reason', async () => {
    const { applier, sut } = sutWith(async (t) =>
      t.versionId === 'v2'
        ? { outcome: 'skipped', reason: 'not-due', action: 'delete-version', s3Action: 'NoncurrentVersionExpiration' }
        : { outcome: 'applied', action: 'delete-version', s3Action: 'NoncurrentVersionExpiration', ruleId: 'old' },
    );

    await sut.execute(candidate);

    expect(applier.applyVersion.mock.calls.map(([t]) => t)).toEqual(
      ['v1', 'v2', 'v3'].map((versionId) => ({ bucketId: candidate.bucketId, bucket: 'logs', key: 'a/b', versionId })),
    );
    expect(await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'NoncurrentVersionExpiration' })).toBe(2);
    expect(await count(registry, 'ostore_lifecycle_actions_skipped_total', { action: 'NoncurrentVersionExpiration', reason: 'not-due' })).toBe(1);
  });

  it('converges stale null rows first when the candidate says so (versions or none), counted as ConvergeNulls', async () => {
    const order: string[] = [];
    const { applier, sut } = sutWith(
      async (t) => {
        order.push(t.versionId);
        return { outcome: 'applied', action: 'delete-version', s3Action: 'NoncurrentVersionExpiration' };
      },
      async () => {
        order.push('converge');
        return { outcome: 'applied', action: 'converge-nulls', s3Action: 'ConvergeNulls' };
      },
    );

    await sut.execute({ ...candidate, staleNulls: true });
    await sut.execute({ ...candidate, versions: [], staleNulls: true });
    await sut.execute({ ...candidate, staleNulls: false });

    expect(order).toEqual(['converge', 'v1', 'v2', 'v3', 'converge', 'v1', 'v2', 'v3']);
    expect(applier.convergeStaleNulls.mock.calls.map(([t]) => t)).toEqual([
      { bucketId: candidate.bucketId, bucket: 'logs', key: 'a/b' },
      { bucketId: candidate.bucketId, bucket: 'logs', key: 'a/b' },
    ]);
    expect(await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'ConvergeNulls' })).toBe(2);
  });

  it('retries a convergence that fails with a retryable error or stays contended; counts any other failure', async () => {
    const only = { ...candidate, versions: [], staleNulls: true };
    const failing = (err: Error) => sutWith(async () => ({ outcome: 'applied' }), async () => Promise.reject(err)).sut;
    await expect(failing(new errors.NoHostAvailableError({})).execute(only)).rejects.toBeInstanceOf(RetryableFailure);
    const contended = sutWith(async () => ({ outcome: 'applied' }), async () => ({ outcome: 'skipped', reason: 'contended' })).sut;
    await expect(contended.execute(only)).rejects.toBeInstanceOf(RetryableFailure);
    await failing(new Error('boom')).execute(only);
    expect(await count(registry, 'ostore_lifecycle_apply_failures_total', { action: 'ConvergeNulls' })).toBe(1);
  });

  it('labels a skip before any decision with the action the candidate suggested', async () => {
    const { sut } = sutWith(async () => ({ outcome: 'skipped', reason: 'bucket-gone' }));
    await sut.execute(candidate);
    expect(await count(registry, 'ostore_lifecycle_actions_skipped_total', { action: 'Transition', reason: 'bucket-gone' })).toBe(1);
  });

  it('throws retryable errors for the runner, and counts nothing yet', async () => {
    const { sut } = sutWith(async () => {
      throw new errors.NoHostAvailableError({});
    });
    await expect(sut.execute(candidate)).rejects.toBeInstanceOf(RetryableFailure);
    expect(await count(registry, 'ostore_lifecycle_apply_failures_total', { action: 'NoncurrentVersionExpiration' })).toBe(0);
  });

  it('retries a key that stays claimed (a crashed scheduler\'s claim lasts until its TTL)', async () => {
    const { sut } = sutWith(async () => ({ outcome: 'skipped', reason: 'contended' }));
    await expect(sut.execute(candidate)).rejects.toBeInstanceOf(RetryableFailure);
    expect(await count(registry, 'ostore_lifecycle_actions_skipped_total', { reason: 'contended' })).toBe(0);
  });

  it('counts any other error as a failure of that version and goes on with the others', async () => {
    const { applier, sut } = sutWith(async (t) => {
      if (t.versionId === 'v1') throw new Error('stored lifecycle configuration is not readable');
      return { outcome: 'applied', action: 'transition', s3Action: 'Transition' };
    });
    await sut.execute(candidate);
    expect(applier.applyVersion).toHaveBeenCalledTimes(3);
    expect(await count(registry, 'ostore_lifecycle_apply_failures_total', { action: 'NoncurrentVersionExpiration' })).toBe(1);
    expect(await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'Transition' })).toBe(2);
  });
});
