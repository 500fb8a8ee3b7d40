import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { CassandraClient } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import {
  BlockRef,
  BlockStore,
  BlockUnavailableError,
  CassandraBlockManager,
  CassandraBlockStore,
  LocalFsBlockStore,
} from '../src';
import { blockStorage, bodyOf, drain, migratedKeyspace, pattern } from './support';

const KiB = 1024;

describe('CassandraBlockManager against the real Cassandra', () => {
  let cassandra: CassandraClient;
  let other: CassandraClient;
  let root: string;

  beforeAll(async () => {
    cassandra = await migratedKeyspace('blockmanager');
    other = new CassandraClient(cassandra.options);
    await other.connect();
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-manager-'));
  });
  afterAll(async () => {
    await cassandra?.shutdown();
    await other?.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  const refsOf = async (blockId: string) =>
    (await cassandra.execute('SELECT ref FROM block_refs WHERE block_id = ?', [blockId])).rows
      .map((r) => r['ref'] as string | null)
      .filter((r): r is string => r !== null);

  const storesOf: [string, () => BlockStore][] = [
    ['fs', () => new LocalFsBlockStore({ tier: 'standard', root: path.join(root, 'fs') })],
    ['cassandra', () => new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 4 * KiB })],
  ];

  describe.each(storesOf)('over the %s store', (_kind, makeStore) => {
    let store: BlockStore;
    let sut: CassandraBlockManager;

    beforeAll(() => {
      store = makeStore();
      sut = blockStorage(cassandra, [store], new SystemClock(), {
        blockSize: 64 * KiB,
        readSize: 16 * KiB,
      }).manager;
    });

    it('streams a multi-block body in and out, whole and by ranges', async () => {
      const data = pattern(64 * KiB * 5 + 1234, 21);
      const stored = await sut.writeStream(bodyOf(data, 10_000));
      expect(stored.size).toBe(data.length);
      expect(stored.blocks.map((b) => b.size)).toEqual([65536, 65536, 65536, 65536, 65536, 1234]);
      await sut.addRefs(stored.blocks, 'v:stream');

      expect((await drain(sut.openRead(stored.blocks))).equals(data)).toBe(true);
      for (const [start, endInclusive] of [
        [0, 0],
        [65535, 65536],
        [1000, 200_000],
        [data.length - 1, data.length - 1],
        [300_000, data.length + 500],
      ]) {
        const got = await drain(sut.openRead(stored.blocks, { start, endInclusive }));
        expect(got.equals(data.subarray(start, Math.min(endInclusive + 1, data.length)))).toBe(true);
      }
      await sut.releaseRefs(stored.blocks, 'v:stream');
    });

    it('holds at most two blocks of the body while writing and reads ahead one unit while streaming out', async () => {
      const blockSize = 64 * KiB;
      const total = blockSize * 12;
      let produced = 0;
      let maxAhead = 0;
      let stored = 0;
      const watched: BlockStore = {
        tier: store.tier,
        preferredReadSize: store.preferredReadSize,
        write: async (id, d) => {
          maxAhead = Math.max(maxAhead, produced - stored);
          await new Promise((r) => setTimeout(r, 5)); // a slow disk
          await store.write(id, d);
          stored += d.length;
        },
        read: (id, s, e) => store.read(id, s, e),
        delete: (id) => store.delete(id),
        exists: (id) => store.exists(id),
      };
      const manager = blockStorage(cassandra, [watched], new SystemClock(), {
        blockSize,
        readSize: 16 * KiB,
      }).manager;
      const body = new Readable({
        highWaterMark: 16 * KiB,
        read() {
          if (produced >= total) return this.push(null);
          const n = Math.min(8 * KiB, total - produced);
          produced += n;
          this.push(pattern(n, produced));
        },
      });
      const result = await manager.writeStream(body);
      expect(result.size).toBe(total);
      // The block being stored + the block being filled + the stream's own small buffer.
      expect(maxAhead).toBeLessThanOrEqual(2 * blockSize + 32 * KiB);

      let reads = 0;
      watched.read = (id, s, e) => {
        reads++;
        return store.read(id, s, e);
      };
      const out = manager.openRead(result.blocks);
      const unitsPerBlock = Math.ceil(blockSize / Math.min(store.preferredReadSize ?? 16 * KiB, 16 * KiB));
      let consumed = 0;
      for await (const piece of out) {
        consumed++;
        expect(reads).toBeLessThanOrEqual(consumed + 2);
        await new Promise((r) => setImmediate(r, piece));
      }
      expect(consumed).toBe(12 * unitsPerBlock);
      await manager.discard(result.blocks);
    });
  });

  describe('reference counting', () => {
    let store: LocalFsBlockStore;
    let sut: CassandraBlockManager;
    let gateway2: CassandraBlockManager;

    beforeAll(() => {
      store = new LocalFsBlockStore({ tier: 'standard', root: path.join(root, 'refs') });
      sut = blockStorage(cassandra, [store], new SystemClock(), { blockSize: 16 * KiB }).manager;
      // A second gateway: its own session and its own (empty) cache of in-flight blocks.
      gateway2 = blockStorage(other, [store], new SystemClock(), { blockSize: 16 * KiB }).manager;
    });

    const allExist = async (blocks: BlockRef[]) =>
      (await Promise.all(blocks.map((b) => store.exists(b.blockId)))).every(Boolean);
    const noneExist = async (blocks: BlockRef[]) =>
      !(await Promise.all(blocks.map((b) => store.exists(b.blockId)))).some(Boolean);

    it('keeps the bytes while one of two references is left, deletes them with the last', async () => {
      const data = pattern(40 * KiB, 2);
      const { blocks } = await sut.writeStream(bodyOf(data));
      await sut.addRefs(blocks, 'v:one');
      await gateway2.addRefs(blocks, 'v:two');
      expect(await refsOf(blocks[0].blockId)).toEqual(['v:one', 'v:two']);
      const info = await sut.inspect(blocks[0].blockId);
      expect(info).toMatchObject({ status: 'committed', referenced: true, size: 16 * KiB, tier: 'standard' });

      await sut.releaseRefs(blocks, 'v:one');
      expect(await allExist(blocks)).toBe(true);
      expect((await drain(sut.openRead(blocks))).equals(data)).toBe(true);

      await gateway2.releaseRefs(blocks, 'v:two');
      expect(await noneExist(blocks)).toBe(true);
      for (const b of blocks) expect(await sut.inspect(b.blockId)).toBeUndefined();
      await expect(sut.releaseRefs(blocks, 'v:two')).resolves.toBeUndefined();
    });

    it('adds a reference idempotently', async () => {
      const { blocks } = await sut.writeStream(bodyOf(pattern(20 * KiB, 3)));
      await sut.addRefs(blocks, 'v:same');
      await sut.addRefs(blocks, 'v:same');
      await gateway2.addRefs(blocks, 'v:same');
      expect(await refsOf(blocks[0].blockId)).toEqual(['v:same']);
      await sut.releaseRefs(blocks, 'v:same');
      expect(await noneExist(blocks)).toBe(true);
    });

    it('refuses to reference a deleted block and rolls back only the references it added', async () => {
      const first = await sut.writeStream(bodyOf(pattern(16 * KiB, 4)));
      const second = await sut.writeStream(bodyOf(pattern(16 * KiB, 5)));
      const gone = await sut.writeStream(bodyOf(pattern(16 * KiB, 6)));
      await sut.discard(gone.blocks);
      await sut.addRefs(first.blocks, 'v:x'); // already there before the failing call

      const err = await sut
        .addRefs([...first.blocks, ...second.blocks, ...gone.blocks], 'v:x')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BlockUnavailableError);
      expect(await refsOf(first.blocks[0].blockId)).toEqual(['v:x']);
      expect(await allExist(first.blocks)).toBe(true);
      // `second` was committed by the failed call only: rolled back, hence deleted.
      expect(await refsOf(second.blocks[0].blockId)).toEqual([]);
      expect(await noneExist(second.blocks)).toBe(true);
      await sut.releaseRefs(first.blocks, 'v:x');
    });

    it('discards in-flight blocks but never a referenced one', async () => {
      const kept = await sut.writeStream(bodyOf(pattern(16 * KiB, 7)));
      const dropped = await sut.writeStream(bodyOf(pattern(32 * KiB, 8)));
      await sut.addRefs(kept.blocks, 'v:kept');
      await gateway2.discard([...kept.blocks, ...dropped.blocks]);
      expect(await allExist(kept.blocks)).toBe(true);
      expect(await noneExist(dropped.blocks)).toBe(true);
      await expect(sut.addRefs(dropped.blocks, 'v:late')).rejects.toBeInstanceOf(BlockUnavailableError);
      await sut.releaseRefs(kept.blocks, 'v:kept');
    });

    it('never leaves a reference to deleted bytes when addRefs races the release of the last reference', async () => {
      const outcomes = { kept: 0, refused: 0 };
      for (let i = 0; i < 40; i++) {
        const { blocks } = await sut.writeStream(bodyOf(pattern(1 + (i % 3) * 8 * KiB, 100 + i)));
        await sut.addRefs(blocks, 'v:old');
        // Stagger the start of the copy a little so both orders get exercised.
        const copy = new Promise((r) => setTimeout(r, i % 4)).then(() => gateway2.addRefs(blocks, 'v:copy'));
        const [release, add] = await Promise.allSettled([sut.releaseRefs(blocks, 'v:old'), copy]);
        expect(release.status).toBe('fulfilled');
        if (add.status === 'fulfilled') {
          outcomes.kept++;
          expect(await refsOf(blocks[0].blockId)).toEqual(['v:copy']);
          expect(await allExist(blocks)).toBe(true);
          expect(await sut.inspect(blocks[0].blockId)).toMatchObject({
            status: 'committed',
            referenced: true,
          });
          await gateway2.releaseRefs(blocks, 'v:copy');
          expect(await noneExist(blocks)).toBe(true);
        } else {
          outcomes.refused++;
          expect(add.reason).toBeInstanceOf(BlockUnavailableError);
          expect(await refsOf(blocks[0].blockId)).toEqual([]);
          expect(await noneExist(blocks)).toBe(true);
        }
      }
      expect(outcomes.kept + outcomes.refused).toBe(40);
      process.stdout.write(`addRefs vs releaseRefs race: ${JSON.stringify(outcomes)}\n`);
    });
  });
});
