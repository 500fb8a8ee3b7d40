import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CassandraClient } from '@ostore/shared/cassandra';
import {
  BlockCorruptError,
  BlockNotFoundError,
  BlockStore,
  CassandraBlockStore,
  CompressedBlockStore,
  LocalFsBlockStore,
  newBlockId,
} from '../src';
import { migratedKeyspace, pattern } from './support';

describe('block stores against the real filesystem and Cassandra', () => {
  let cassandra: CassandraClient;
  let root: string;

  beforeAll(async () => {
    cassandra = await migratedKeyspace('blockstores');
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-blocks-'));
  });
  afterAll(async () => {
    await cassandra?.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  const kinds: [string, () => BlockStore][] = [
    ['LocalFsBlockStore', () => new LocalFsBlockStore({ tier: 'standard', root: path.join(root, 'fs') })],
    ['CassandraBlockStore', () => new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 4096 })],
    [
      'CompressedBlockStore over the filesystem',
      () =>
        new CompressedBlockStore(new LocalFsBlockStore({ tier: 'cold-raw', root: path.join(root, 'cold') }), {
          tier: 'cold',
        }),
    ],
    [
      'CompressedBlockStore over Cassandra (brotli)',
      () =>
        new CompressedBlockStore(new CassandraBlockStore(cassandra, { tier: 'cold-raw', chunkSize: 4096 }), {
          tier: 'cold',
          algorithm: 'brotli',
        }),
    ],
  ];

  describe.each(kinds)('%s', (_name, make) => {
    let sut: BlockStore;
    beforeAll(() => {
      sut = make();
    });

    it('writes, reads, reads ranges and deletes a block', async () => {
      const id = newBlockId();
      const data = pattern(10_000 + 123, 7);
      expect(await sut.exists(id)).toBe(false);
      await sut.write(id, data);
      expect(await sut.exists(id)).toBe(true);
      expect((await sut.read(id)).equals(data)).toBe(true);
      for (const [a, b] of [
        [0, 1],
        [4095, 4097],
        [4096, 8192],
        [5000, 10_123],
        [9000, 50_000],
        [10_122, 10_123],
      ]) {
        expect((await sut.read(id, a, b)).equals(data.subarray(a, b))).toBe(true);
      }
      expect((await sut.read(id, 20_000, 30_000)).length).toBe(0);
      await sut.delete(id);
      expect(await sut.exists(id)).toBe(false);
      await expect(sut.read(id)).rejects.toBeInstanceOf(BlockNotFoundError);
      await expect(sut.read(id, 10, 20)).rejects.toBeInstanceOf(BlockNotFoundError);
      await expect(sut.delete(id)).resolves.toBeUndefined();
    });

    it('takes a rewrite of the same bytes under the same id', async () => {
      const id = newBlockId();
      const data = pattern(9000, 3);
      await sut.write(id, data);
      await sut.write(id, data);
      expect((await sut.read(id)).equals(data)).toBe(true);
    });
  });

  describe(CassandraBlockStore.name, () => {
    const chunks = (id: string) =>
      cassandra
        .execute('SELECT chunk_index FROM block_chunks WHERE block_id = ?', [id])
        .then((rs) => rs.rows.map((r) => r['chunk_index'] as number).filter((i) => i !== null));

    it('stores a block as fixed-size chunks and range reads touch only the chunks they need', async () => {
      const sut = new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 4096 });
      const id = newBlockId();
      const data = pattern(4096 * 4 + 100, 11);
      await sut.write(id, data);
      expect(await chunks(id)).toEqual([0, 1, 2, 3, 4]);
      // Remove chunk 0: reads of chunks 2..3 still work (they never asked for it), a whole read notices.
      await cassandra.execute('DELETE FROM block_chunks WHERE block_id = ? AND chunk_index = 0', [id]);
      expect(
        (await sut.read(id, 4096 * 2 + 5, 4096 * 4 - 1)).equals(data.subarray(4096 * 2 + 5, 4096 * 4 - 1)),
      ).toBe(true);
      await expect(sut.read(id)).rejects.toBeInstanceOf(BlockCorruptError);
      await expect(sut.read(id, 10, 20)).rejects.toBeInstanceOf(BlockCorruptError);
    });

    it('reads blocks written with another chunk size', async () => {
      const writer = new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 4096 });
      const sut = new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 16384 });
      const id = newBlockId();
      const data = pattern(40_000, 5);
      await writer.write(id, data);
      expect((await sut.read(id)).equals(data)).toBe(true);
      expect((await sut.read(id, 5000, 30_000)).equals(data.subarray(5000, 30_000))).toBe(true);
      expect((await sut.read(id, 39_999)).equals(data.subarray(39_999))).toBe(true);
    });

    it('does not show a block whose write died before its completion marker', async () => {
      const sut = new CassandraBlockStore(cassandra, { tier: 'standard', chunkSize: 4096 });
      const id = newBlockId();
      await cassandra.execute('INSERT INTO block_chunks (block_id, chunk_index, data) VALUES (?, 0, ?)', [
        id,
        pattern(4096),
      ]);
      expect(await sut.exists(id)).toBe(false);
      await expect(sut.read(id)).rejects.toBeInstanceOf(BlockNotFoundError);
      await sut.delete(id);
      expect(await chunks(id)).toEqual([]);
    });
  });
});
