import type { NullRowRef } from '@ostore/metastore/data-access';
import { MetricsRegistry } from '@ostore/shared/observability';
import { ConvergenceMetrics, splitKey } from '../src';
import { alice, get, harness, Harness, put } from './support';

/**
 * A write whose null-version cleanup fails still succeeds (its mutation landed): the failure is
 * counted (ostore_s3_convergence_failures_total, the alert OStoreWriteConvergenceFailing), the
 * stale row stays for the next writer or the lifecycle scan, and the next write removes it.
 */
describe('post-commit steps that fail are counted (real Cassandra)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('convergefail');
    await h.core.buckets.create({ name: 'converge-fail', owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  it('PutObject: a failed null-row read is counted, the stale row stays, and the next PUT removes it', async () => {
    const { bucketId } = await h.core.buckets.get('converge-fail');
    const { parent, name } = splitKey('dir/key');
    await put(h.core, 'converge-fail', 'dir/key', 'one');
    const versions = h.ms.versions;
    const nullRows = versions.nullRows;
    versions.nullRows = async (): Promise<NullRowRef[]> => {
      throw new Error('read timed out (test)');
    };
    try {
      await put(h.core, 'converge-fail', 'dir/key', 'two');
    } finally {
      versions.nullRows = nullRows;
    }
    expect(h.convergenceFailures).toEqual(['null_versions']);
    expect(await get(h.core, 'converge-fail', 'dir/key')).toBe('two');
    expect(await versions.nullRows(bucketId, parent, name)).toHaveLength(2);

    await put(h.core, 'converge-fail', 'dir/key', 'three');
    expect(await versions.nullRows(bucketId, parent, name)).toHaveLength(1);
    expect(h.convergenceFailures).toEqual(['null_versions']);
  });

  it('DeleteObjects: a failed null-row read of the partition is counted once', async () => {
    const keys = ['many/a', 'many/b'];
    for (const k of keys) await put(h.core, 'converge-fail', k, k);
    h.convergenceFailures.length = 0;
    const versions = h.ms.versions;
    const nullRowsOfNames = versions.nullRowsOfNames;
    versions.nullRowsOfNames = async () => {
      throw new Error('read timed out (test)');
    };
    let out;
    try {
      out = await h.core.objects.deleteMany('converge-fail', alice, keys.map((key) => ({ key })));
    } finally {
      versions.nullRowsOfNames = nullRowsOfNames;
    }
    expect(out.every((o) => o.ok)).toBe(true);
    expect(h.convergenceFailures).toEqual(['null_versions']);
  });

  it('ConvergenceMetrics exports the count by step', async () => {
    const registry = new MetricsRegistry('gateway', false);
    const metrics = new ConvergenceMetrics(registry);
    metrics.failed('null_versions');
    metrics.failed('null_versions');
    metrics.failed('index_check');
    metrics.deferred();
    const text = await registry.registry.metrics();
    expect(text).toMatch(/^ostore_s3_convergence_failures_total\{step="null_versions",app="gateway"\} 2$/m);
    expect(text).toMatch(/^ostore_s3_convergence_failures_total\{step="index_check",app="gateway"\} 1$/m);
    expect(text).toMatch(/^ostore_s3_null_convergence_deferred_total\{app="gateway"\} 1$/m);
  });
});
