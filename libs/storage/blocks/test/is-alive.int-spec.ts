import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { waitFor } from '@ostore/testing';
import { BlockUnavailableError, LocalFsBlockStore } from '../src';
import { blockStorage, bodyOf, migratedKeyspace, pattern } from './support';

/**
 * Seed 004 on our own table: Cassandra TTLs live per cell. An in-flight status row is inserted with
 * a TTL; a partial UPDATE (the mistake the block manager never makes) gives one cell a life of its
 * own, and once the insert's cells expire the row is half there. `is_alive`, written only with the
 * whole row, tells the difference; a row without it is never taken for a block.
 */
describe('is_alive: a half-expired block status never surfaces as a valid block', () => {
  const TTL_SECONDS = 3;
  let cassandra: CassandraClient;
  let root: string;

  beforeAll(async () => {
    cassandra = await migratedKeyspace('isalive');
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-isalive-'));
  });
  afterAll(async () => {
    await cassandra?.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  const rawStatus = async (blockId: string) =>
    (
      await cassandra.execute(
        'SELECT status, is_alive, md5, size, tier, created_at, version, TTL(status) AS ttl_status, TTL(is_alive) AS ttl_alive FROM block_refs WHERE block_id = ? LIMIT 1',
        [blockId],
      )
    ).first();

  it('tells a partially updated, half-expired row from a whole one', async () => {
    const clock = new FakeClock(Date.now());
    const store = new LocalFsBlockStore({ tier: 'standard', root });
    const { manager, gc, repo } = blockStorage(cassandra, [store], clock, {
      blockSize: 8 * 1024,
      inFlightTtlSeconds: TTL_SECONDS,
      gcGraceMs: 60_000,
    });

    const broken = (await manager.writeStream(bodyOf(pattern(8 * 1024, 1)))).blocks[0];
    const whole = (await manager.writeStream(bodyOf(pattern(8 * 1024, 2)))).blocks[0];
    // The right way: commit rewrites the whole status without TTL.
    await manager.addRefs([whole], 'v:whole');
    // The wrong way (seed 004): a plain partial update of the TTL'd in-flight row.
    await cassandra.execute(`UPDATE block_refs SET status = 'committed' WHERE block_id = ?`, [
      broken.blockId,
    ]);

    const before = await rawStatus(broken.blockId);
    expect(before['status']).toBe('committed');
    expect(before['is_alive']).toBe(true);
    expect(before['ttl_status']).toBeNull(); // the updated cell no longer expires...
    expect(before['ttl_alive']).toBeGreaterThan(0); // ...while the inserted ones still do

    const after = await waitFor(
      'the cells of the in-flight insert to expire',
      async () => {
        const row = await rawStatus(broken.blockId);
        return row && row['is_alive'] === null ? row : undefined;
      },
      (TTL_SECONDS + 20) * 1000,
      100,
    );
    // The half-expired row: the partially updated cell survived, everything written at insert is gone.
    expect(after['status']).toBe('committed');
    expect([after['md5'], after['size'], after['tier'], after['created_at'], after['version']]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);

    // Never taken for a valid block...
    expect(await repo.read(broken.blockId)).toEqual({
      kind: 'broken',
      status: 'committed',
      tier: null,
      size: null,
      hasRef: false,
    });
    expect(await manager.inspect(broken.blockId)).toBeUndefined();
    await expect(manager.addRefs([broken], 'v:late')).rejects.toBeInstanceOf(BlockUnavailableError);
    expect(await store.exists(broken.blockId)).toBe(true);

    // ...while the whole-row commit outlived the in-flight TTL intact and without any TTL.
    expect(await manager.inspect(whole.blockId)).toMatchObject({
      status: 'committed',
      referenced: true,
      size: 8 * 1024,
    });
    const committed = await rawStatus(whole.blockId);
    expect([committed['ttl_status'], committed['ttl_alive']]).toEqual([null, null]);

    // The GC treats the broken row as garbage once past its grace, and keeps the committed block.
    clock.advance(61_000);
    const report = await gc.runOnce();
    expect(report.reclaimedBlocks).toBe(1);
    expect(await store.exists(broken.blockId)).toBe(false);
    expect(await rawStatus(broken.blockId)).toBeNull();
    expect(await store.exists(whole.blockId)).toBe(true);
  });
});
