import { bodyOf, pattern, referenceTestBed } from './support';

const KiB = 1024;

/**
 * The release of a block's last reference: the reference and the move to 'deleting' in one
 * compare-and-set (BlockStateRepository.releaseLastRef), the general path otherwise.
 */
describe('releasing block references against the real Cassandra', () => {
  const bed = referenceTestBed('blockrelease');
  const { refsOf, storage } = bed;
  afterEach(() => jest.restoreAllMocks());

  it('deletes a block whose only reference goes without a SERIAL read or a separate reference delete', async () => {
    const { manager, repo } = storage(bed.cassandra);
    const { blocks } = await manager.writeStream(bodyOf(pattern(40 * KiB, 31)));
    await manager.addRefs(blocks, 'v:only');
    const serialReads = jest.spyOn(repo, 'read');
    const refDeletes = jest.spyOn(repo, 'deleteRef');
    const lastRefReleases = jest.spyOn(repo, 'releaseLastRef');

    await manager.releaseRefs(blocks, 'v:only');

    expect(lastRefReleases).toHaveBeenCalledTimes(blocks.length);
    expect(serialReads).not.toHaveBeenCalled();
    expect(refDeletes).not.toHaveBeenCalled();
    for (const b of blocks) {
      expect(await manager.inspect(b.blockId)).toBeUndefined();
      expect(await bed.store.exists(b.blockId)).toBe(false);
      expect(await refsOf(b.blockId)).toEqual([]);
    }
    // released again (a redelivered deletion): nothing left to do, no error
    await expect(manager.releaseRefs(blocks, 'v:only')).resolves.toBeUndefined();
  });

  it('keeps a shared block: only the released reference goes', async () => {
    const { manager, repo } = storage(bed.cassandra);
    const { blocks } = await manager.writeStream(bodyOf(pattern(16 * KiB, 32)));
    await manager.addRefs(blocks, 'v:a');
    await manager.addRefs(blocks, 'v:b');
    const lastRefReleases = jest.spyOn(repo, 'releaseLastRef');

    await manager.releaseRefs(blocks, 'v:a');

    expect(lastRefReleases).not.toHaveBeenCalled();
    expect(await refsOf(blocks[0].blockId)).toEqual(['v:b']);
    expect(await bed.store.exists(blocks[0].blockId)).toBe(true);
    expect(await manager.inspect(blocks[0].blockId)).toMatchObject({ status: 'committed', referenced: true });
    await manager.releaseRefs(blocks, 'v:b');
    expect(await bed.store.exists(blocks[0].blockId)).toBe(false);
  });

  it('loses the compare-and-set to a reference added after the read, and then keeps the block', async () => {
    const mine = storage(bed.cassandra);
    const gateway2 = storage(bed.other);
    const { blocks } = await mine.manager.writeStream(bodyOf(pattern(16 * KiB, 33)));
    await mine.manager.addRefs(blocks, 'v:old');
    const seen = await mine.repo.readRefs(blocks[0].blockId, 2);
    expect(seen).toMatchObject({ state: { status: 'committed' }, refs: ['v:old'] });

    await gateway2.manager.addRefs(blocks, 'v:copy'); // a CopyObject between the read and the CAS
    expect(await mine.repo.releaseLastRef(seen.state!, 'v:old', 60)).toBeUndefined();
    expect(await refsOf(blocks[0].blockId)).toEqual(['v:copy', 'v:old']);

    // The manager, caught the same way, falls back to the general path and keeps the copy's block.
    const readRefs = mine.repo.readRefs.bind(mine.repo);
    jest.spyOn(mine.repo, 'readRefs').mockImplementationOnce(async (id, limit) => {
      const stale = { state: seen.state, refs: ['v:old'] };
      await readRefs(id, limit);
      return stale;
    });
    await mine.manager.releaseRefs(blocks, 'v:old');
    expect(await refsOf(blocks[0].blockId)).toEqual(['v:copy']);
    expect(await bed.store.exists(blocks[0].blockId)).toBe(true);
    expect(await mine.manager.inspect(blocks[0].blockId)).toMatchObject({ status: 'committed', referenced: true });
    expect(await mine.metrics.render()).toMatch(/ostore_block_cas_conflicts_total\{op="release"[^}]*\} 1\n/);

    await gateway2.manager.releaseRefs(blocks, 'v:copy');
    expect(await bed.store.exists(blocks[0].blockId)).toBe(false);
    expect(await mine.manager.inspect(blocks[0].blockId)).toBeUndefined();
  });
});
