import type { BucketRow, Metastore } from '@ostore/metastore/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import type { Bucket } from './api';
import { BucketResolver } from './bucket-resolver';

describe(BucketResolver.name, () => {
  const row: BucketRow = {
    name: 'b',
    bucketId: 'id-1',
    ownerId: 'o',
    ownerName: 'O',
    createdAt: new Date(0),
    location: '',
    versioning: 'Enabled',
    acl: 'private',
    state: 'active',
  };
  const setup = (rows: BucketRow[] = [row], ttlMs = 60_000) => {
    const reads: string[] = [];
    const clock = new FakeClock();
    const ms = { buckets: { get: async (name: string) => (reads.push(name), rows.find((r) => r.name === name)) } } as unknown as Metastore;
    return { reads, clock, sut: new BucketResolver(ms, clock, ttlMs) };
  };

  it('hands on a bucket the caller resolved for this request without reading it again', async () => {
    const { reads, sut } = setup();
    const resolved: Bucket = { name: 'b', bucketId: 'id-1', owner: { id: 'o', displayName: 'O' }, createdAt: new Date(0), location: '', versioning: 'Enabled', acl: 'private' };
    expect(await sut.target(resolved)).toBe(resolved);
    expect(reads).toEqual([]);
  });

  it('reads a bucket named by the caller once per TTL, and afresh when asked', async () => {
    const { reads, sut } = setup();
    expect((await sut.target('b')).bucketId).toBe('id-1');
    await Promise.all([sut.resolve('b'), sut.resolve('b')]);
    expect(reads).toEqual(['b']);
    await sut.fresh('b');
    expect(reads).toEqual(['b', 'b']);
  });

  it('answers NoSuchBucket for a missing bucket and never caches the miss', async () => {
    const { reads, sut } = setup([]);
    await expect(sut.target('nope')).rejects.toMatchObject({ code: 'NoSuchBucket', extra: { BucketName: 'nope' } });
    await expect(sut.resolve('nope')).rejects.toMatchObject({ code: 'NoSuchBucket' });
    expect(reads).toEqual(['nope', 'nope']);
  });

  it('reads a cached bucket again once its TTL has passed on the monotonic clock', async () => {
    const { reads, clock, sut } = setup([row], 2_000);
    await sut.resolve('b');
    clock.advance(1_999);
    await sut.resolve('b');
    expect(reads).toEqual(['b']);
    clock.advance(1);
    await sut.resolve('b');
    expect(reads).toEqual(['b', 'b']);
  });

  it('does not keep a cached bucket longer when the wall clock is set back', async () => {
    const { reads, clock, sut } = setup([row], 2_000);
    await sut.resolve('b');
    clock.set(clock.nowMs() - 3_600_000);
    clock.advance(2_000);
    await sut.resolve('b');
    expect(reads).toEqual(['b', 'b']);
  });
});
