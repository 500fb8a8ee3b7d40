import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { BlockRef, BlockStore, CassandraBlockStore, GC_BUCKET_MS, LocalFsBlockStore } from '../src';
import { shardOf } from '../src/block-id';
import { hourBucketOf } from '../src/state/block-state.repository';
import { blockStorage, bodyOf, drain, filesUnder, migratedKeyspace, pattern } from './support';

const KiB = 1024;
const GRACE_MS = 10 * 60_000;

interface Kind {
  store(cassandra: CassandraClient, root: string): BlockStore;
  /** What a write killed midway leaves behind: a temp file, or the first chunk without its marker. */
  tornWrite(store: BlockStore, cassandra: CassandraClient, blockId: string, data: Buffer): Promise<void>;
  /** Ids of every block that has any bytes stored at all (complete or not). */
  storedIds(cassandra: CassandraClient, root: string): Promise<string[]>;
}

const kinds: [string, Kind][] = [
  [
    'fs',
    {
      store: (_c, root) => new LocalFsBlockStore({ tier: 'standard', root }),
      tornWrite: async (store, _c, id, data) => {
        const file = (store as LocalFsBlockStore).pathOf(id);
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(`${file}.tmp`, data.subarray(0, data.length / 2));
      },
      storedIds: async (_c, root) =>
        [...new Set((await filesUnder(root)).map((f) => path.basename(f).replace(/\.tmp$/, '')))].sort(),
    },
  ],
  [
    'cassandra',
    {
      store: (c) => new CassandraBlockStore(c, { tier: 'standard', chunkSize: 4 * KiB }),
      tornWrite: async (_s, c, id, data) => {
        await c.execute('INSERT INTO block_chunks (block_id, chunk_index, data) VALUES (?, 0, ?)', [
          id,
          data.subarray(0, 4 * KiB),
        ]);
      },
      storedIds: async (c) =>
        (await c.execute('SELECT DISTINCT block_id FROM block_chunks')).rows
          .map((r) => r['block_id'] as string)
          .sort(),
    },
  ],
];

describe.each(kinds)('BlockGarbageCollector over the %s store', (kindName, kind) => {
  let cassandra: CassandraClient;
  let root: string;

  beforeAll(async () => {
    cassandra = await migratedKeyspace(`gc${kindName}`);
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-gc-'));
  });
  afterAll(async () => {
    await cassandra?.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('reclaims what crashed uploads and releases left behind, after the grace period only, and never a committed block', async () => {
    const clock = new FakeClock(Date.now());
    const options = { blockSize: 16 * KiB, gcGraceMs: GRACE_MS, gcShards: 4, candidateTtlSeconds: 4 * 3600 };
    const store = kind.store(cassandra, root);
    const survivor = blockStorage(cassandra, [store], clock, options);

    // A gateway killed mid-upload: block 1 stored, block 2 torn halfway, block 3 recorded in flight
    // (it is registered while block 2 is written) but without bytes.
    let tornId: string | undefined;
    let crashed!: () => void;
    const crashedNow = new Promise<void>((r) => (crashed = r));
    const dying: BlockStore = {
      tier: store.tier,
      write: async (id, data) => {
        if (tornId === undefined && (await kind.storedIds(cassandra, root)).length > 0) {
          tornId = id;
          await kind.tornWrite(store, cassandra, id, data);
          crashed();
          return new Promise<void>(() => undefined); // the process is gone: this never completes
        }
        return store.write(id, data);
      },
      read: (id, s, e) => store.read(id, s, e),
      delete: (id) => store.delete(id),
      exists: (id) => store.exists(id),
    };
    const killed = blockStorage(cassandra, [dying], clock, options).manager;
    void killed.writeStream(bodyOf(pattern(48 * KiB, 1)));
    await crashedNow;
    // Let the torn block's status be gone, as after its TTL (the is_alive spec shows real expiry):
    // then only its candidate entry and the store's leftovers tell that it existed.
    await cassandra.execute('DELETE FROM block_refs WHERE block_id = ?', [tornId]);

    // A body whose client went away after the data was stored, before the gateway committed it.
    const uncommitted = await survivor.manager.writeStream(bodyOf(pattern(40 * KiB, 2)));
    // A committed object, and one whose last release was cut short (reference gone, bytes not).
    const committed = await survivor.manager.writeStream(bodyOf(pattern(35 * KiB, 3)));
    await survivor.manager.addRefs(committed.blocks, 'v:live');
    const released = await survivor.manager.writeStream(bodyOf(pattern(20 * KiB, 4)));
    await survivor.manager.addRefs(released.blocks, 'v:gone');
    for (const b of released.blocks) await crashedRelease(survivor.repo, b, clock.now(), options);

    const garbage = [...uncommitted.blocks, ...released.blocks].map((b) => b.blockId);
    const stored = await kind.storedIds(cassandra, root);
    expect(stored).toHaveLength(
      1 + 1 + uncommitted.blocks.length + committed.blocks.length + released.blocks.length,
    );

    // Within the grace period nothing is touched: the upload may still be alive.
    const early = await survivor.gc.runOnce();
    expect(early.reclaimedBlocks).toBe(0);
    expect(await kind.storedIds(cassandra, root)).toEqual(stored);

    clock.advance(GRACE_MS + 1000);
    const sut = await survivor.gc.runOnce();
    expect(sut.reclaimedBlocks).toBe(3 + garbage.length);
    expect(sut.failed).toBe(0);
    expect(sut.reclaimedBytes).toBe(48 * KiB + 40 * KiB + 20 * KiB);
    expect(await kind.storedIds(cassandra, root)).toEqual(committed.blocks.map((b) => b.blockId).sort());
    const statuses = await cassandra.execute('SELECT DISTINCT block_id FROM block_refs');
    expect(statuses.rows.map((r) => r['block_id'] as string).sort()).toEqual(
      committed.blocks.map((b) => b.blockId).sort(),
    );
    expect((await drain(survivor.manager.openRead(committed.blocks))).equals(pattern(35 * KiB, 3))).toBe(
      true,
    );
    const metric = await survivor.metrics.registry
      .getSingleMetric('ostore_block_gc_reclaimed_blocks_total')!
      .get();
    expect(metric.values[0].value).toBe(sut.reclaimedBlocks);

    // Idempotent: a second pass (or another gateway's) finds nothing more to do.
    const again = await blockStorage(cassandra, [store], clock, options).gc.runOnce();
    expect(again.reclaimedBlocks).toBe(0);
    expect(again.failed).toBe(0);
    expect(await kind.storedIds(cassandra, root)).toEqual(committed.blocks.map((b) => b.blockId).sort());

    // Once a bucket is old enough it is marked done and never read again.
    clock.advance(3 * GC_BUCKET_MS);
    const settled = await survivor.gc.runOnce();
    expect(settled.bucketsCompleted).toBeGreaterThan(0);
    const later = await survivor.gc.runOnce();
    expect(later.buckets).toBe(settled.buckets - settled.bucketsCompleted);
    expect(later.examined).toBe(0);
    expect((await drain(survivor.manager.openRead(committed.blocks))).equals(pattern(35 * KiB, 3))).toBe(
      true,
    );
  });
});

/** A releaser that died right after deleting the reference: candidate recorded, block not deleted. */
async function crashedRelease(
  repo: ReturnType<typeof blockStorage>['repo'],
  block: BlockRef,
  now: Date,
  options: { gcShards: number; candidateTtlSeconds: number },
): Promise<void> {
  await repo.recordCandidate(
    {
      shard: shardOf(block.blockId, options.gcShards),
      hourBucket: hourBucketOf(now.getTime()),
      blockId: block.blockId,
      reason: 'release',
      tier: block.tier,
      size: block.size,
      createdAt: now,
    },
    options.candidateTtlSeconds,
  );
  expect(await repo.deleteRef(block.blockId, 'v:gone')).toBe(true);
}
