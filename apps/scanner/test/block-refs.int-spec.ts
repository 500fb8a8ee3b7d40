import { Readable } from 'stream';
import { BlockRefsScanTask, ScannedBlockRefRow } from '@ostore/lifecycle/scan';
import { CoreFixture, newCoreFixture } from '@ostore/s3/core/testing';
import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { combineSnapshots } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { cassandraOptions, freshCluster, freshKeyspace, stackEnv } from '@ostore/testing';
import { alice, DAY, migrate, sample, scannerOf, ScannerUnderTest, tapped, withSource } from './support';

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const never = new AbortController().signal;
const KIB = 1024;

/** What an exact recount of `block_refs` finds: references per committed block. */
async function recount(db: CassandraClient): Promise<Map<string, number>> {
  const refs = new Map<string, number>();
  for await (const r of db.rows('SELECT block_id, ref, status, is_alive FROM block_refs', [], {
    fetchSize: 1000,
  })) {
    if (r['is_alive'] !== true || r['status'] !== 'committed' || r['ref'] === null) continue;
    const id = r['block_id'] as string;
    refs.set(id, (refs.get(id) ?? 0) + 1);
  }
  return refs;
}

/**
 * The most-referenced blocks against the real stack: objects stored in the Cassandra block store
 * and copied (CopyObject shares the source's blocks), one pass of the scanner over `block_refs`,
 * and the combined snapshot lists each shared block with all its references and per bucket.
 */
describe('most-referenced blocks in the scan snapshot (Cassandra + Kafka)', () => {
  const env = () => stackEnv();
  const open: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const o of open.reverse()) await o.close();
  });

  const setup = async (name: string) => {
    const ks = freshKeyspace(name);
    await migrate(cassandraOptions(ks));
    const clock = new FakeClock(T0);
    // no inline bodies: every object's bytes are blocks, so that small objects share blocks too
    const fx: CoreFixture<FakeClock> = await newCoreFixture(ks, {
      clock,
      settings: { inlineBodyMaxBytes: 0, rowBodyMaxBytes: 0 },
    });
    open.push(fx);
    const scanner = async (
      settings: Parameters<typeof scannerOf>[0]['settings'] = {},
    ): Promise<ScannerUnderTest> => {
      const s = await scannerOf({
        options: cassandraOptions(ks),
        nodeAddress: env().cassandraHost,
        db: fx.client,
        brokers: env().kafkaBrokers,
        cluster: freshCluster(name),
        clock,
        settings,
      });
      open.push(s);
      return s;
    };
    const put = (bucket: string, key: string, bytes: number, fill: number) =>
      fx.core.objects.put({
        bucket,
        key,
        owner: alice,
        body: Readable.from([Buffer.alloc(bytes, fill)]),
        meta: { userMeta: {} },
      });
    const copy = (from: { bucket: string; key: string }, bucket: string, key: string) =>
      fx.core.objects.copy({
        source: from,
        bucket,
        key,
        owner: alice,
        metadataDirective: 'COPY',
        meta: { userMeta: {} },
      });
    return { ks, clock, fx, db: fx.client, scanner, put, copy, store: new SnapshotStore(fx.client, clock) };
  };

  it('lists the shared blocks of a bucket with all their references, the bucket’s share and size', async () => {
    const { ks, clock, fx, db, scanner, put, copy, store } = await setup('blkrefs');
    for (const b of ['blk-a', 'blk-b'])
      await fx.core.buckets.create({ name: b, owner: alice, location: 'us-east-1', acl: 'private' });
    // 150 KiB in 64 KiB blocks: three blocks, each shared by the source and its four copies
    await put('blk-a', 'src', 150 * KIB, 1);
    for (const k of ['c1', 'c2', 'c3']) await copy({ bucket: 'blk-a', key: 'src' }, 'blk-a', k);
    await copy({ bucket: 'blk-a', key: 'src' }, 'blk-b', 'x1');
    await put('blk-a', 'pair', 70 * KIB, 2);
    await copy({ bucket: 'blk-a', key: 'pair' }, 'blk-a', 'pair-copy');
    await put('blk-a', 'solo', 100 * KIB, 3);

    const exact = await recount(db);
    const srcBlocks = (
      await fx.ms.versions.readBlocks(
        (await fx.ms.versions.newest((await fx.core.buckets.get('blk-a')).bucketId, '', 'src'))[0].vid,
      )
    ).map((b) => b.blockId);
    expect(srcBlocks).toHaveLength(3);
    for (const id of srcBlocks) expect(exact.get(id)).toBe(5);

    clock.set(T0 + DAY);
    const s = await scanner({ fetchSize: 7 });
    const result = await s.scanner.run(s.tasks.get('block_refs')!, s.spans, never);
    expect(result.outcome).toBe('completed');
    // a block pass alone holds no usage at a cut: nothing to combine until a usage pass completed
    expect(combineSnapshots(await store.hostSnapshots(ks))).toBeUndefined();
    expect((await s.scanner.run(s.tasks.get('versions')!, s.spans, never)).outcome).toBe('completed');
    const hosts = await store.hostSnapshots(ks);
    expect(hosts.map((h) => h.handler).sort()).toEqual(['block_refs', 'versions']);
    const host = hosts.find((h) => h.handler === 'block_refs')!;
    expect(host.snapshot.blocks).toEqual({
      blocks: exact.size,
      refs: [...exact.values()].reduce((a, b) => a + b, 0),
      maxRefs: 5,
    });
    expect(await sample(s.registry, 'ostore_scanner_block_max_references')).toBe(5);

    await store.saveCombination(ks, combineSnapshots(await store.hostSnapshots(ks))!);
    const a = (await fx.core.buckets.get('blk-a')).bucketId;
    const b = (await fx.core.buckets.get('blk-b')).bucketId;
    const inA = (await store.latestBucket(ks, a))!.bucket!;
    expect(inA).toMatchObject({ name: 'blk-a', bytes: (4 * 150 + 2 * 70 + 100) * KIB, objects: 7 });
    const sizes = [64 * KIB, 64 * KIB, 22 * KIB];
    expect(
      inA.topBlocks
        .slice(0, 3)
        .map((x) => x.name)
        .sort(),
    ).toEqual([...srcBlocks].sort());
    for (const x of inA.topBlocks.slice(0, 3)) {
      expect(x).toMatchObject({ n: 5, buckets: { [a]: 4, [b]: 1 } });
      expect(x.size).toBe(sizes[srcBlocks.indexOf(x.name)]);
    }
    // pair's two blocks (64 KiB + 6 KiB) have two references each; solo's blocks share nothing
    expect(inA.topBlocks.slice(3).map((x) => [x.n, x.buckets[a]])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    const inB = (await store.latestBucket(ks, b))!.bucket!;
    expect(inB.topBlocks.map((x) => x.name).sort()).toEqual([...srcBlocks].sort());
  });

  it('a pass stopped mid-scan resumes from the saved block and counts each reference once', async () => {
    const { ks, clock, fx, db, scanner, put, copy, store } = await setup('blkresume');
    await fx.core.buckets.create({ name: 'blk-r', owner: alice, location: 'us-east-1', acl: 'private' });
    for (let i = 0; i < 24; i++) {
      await put('blk-r', `o${i}`, 10 * KIB, i);
      for (let c = 0; c < i % 4; c++)
        await copy({ bucket: 'blk-r', key: `o${i}` }, 'blk-r', `o${i}-copy${c}`);
    }
    const exact = await recount(db);
    expect(exact.size).toBe(24);
    clock.set(T0 + DAY);
    const first = await scanner({ fetchSize: 5, checkpointMs: 0 });
    const stop = new AbortController();
    let pages = 0;
    const task = first.tasks.get('block_refs') as BlockRefsScanTask;
    const stopped = await first.scanner.run(
      withSource(
        task,
        tapped<ScannedBlockRefRow>(task.source, () => ++pages === 4 && stop.abort()),
      ),
      first.spans,
      stop.signal,
    );
    expect(stopped.outcome).toBe('stopped');
    const saved = await first.state.latest(first.hostId, ks, 'block_refs');
    expect(saved?.stat.usage?.blocks?.blocks).toBeGreaterThan(0);
    expect(saved?.stat.usage?.blocks?.blocks).toBeLessThan(24);
    expect(await store.hostSnapshots(ks)).toEqual([]);

    const second = await scanner({ fetchSize: 5 });
    const resumed = await second.scanner.run(second.tasks.get('block_refs')!, second.spans, never);
    expect(resumed).toMatchObject({
      outcome: 'completed',
      resumed: true,
      stats: { resumes: 1, objects: 24 },
    });
    const [host] = await store.hostSnapshots(ks);
    expect(host.snapshot.blocks).toEqual({
      blocks: 24,
      refs: [...exact.values()].reduce((x, y) => x + y, 0),
      maxRefs: 4,
    });
    const r = (await fx.core.buckets.get('blk-r')).bucketId;
    const shared = [...exact.entries()]
      .filter(([, n]) => n >= 2)
      .sort(([x, m], [y, n]) => n - m || (x < y ? -1 : 1));
    expect(host.snapshot.buckets[r].topBlocks!.map((x) => [x.name, x.n, x.buckets[r]])).toEqual(
      shared.slice(0, 10).map(([id, n]) => [id, n, n]),
    );
  });
});
