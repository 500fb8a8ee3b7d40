import { BlockUnavailableError } from '../src';
import { bodyOf, pattern, referenceTestBed } from './support';

const KiB = 1024;

/**
 * Moving references (BlockManager.moveRefs, multipart completion): a block's part reference
 * becomes the version's in one compare-and-set (BlockStateRepository.moveRefs).
 */
describe('moving block references against the real Cassandra', () => {
  const bed = referenceTestBed('blockmove');
  const { refsOf, storage } = bed;
  afterEach(() => jest.restoreAllMocks());

  it('moves each block from its part reference to the version in one compare-and-set, with no SERIAL read', async () => {
    const uploader = storage(bed.cassandra);
    const completer = storage(bed.other); // another gateway: nothing of the upload in its memory
    const part1 = await uploader.manager.writeStream(bodyOf(pattern(40 * KiB, 41)));
    const part2 = await uploader.manager.writeStream(bodyOf(pattern(16 * KiB, 42)));
    await uploader.manager.addRefs(part1.blocks, 'p:u:1:a');
    await uploader.manager.addRefs(part2.blocks, 'p:u:2:b');
    const serialReads = jest.spyOn(completer.repo, 'read');
    const moves = jest.spyOn(completer.repo, 'moveRefs');
    const refAdds = jest.spyOn(completer.repo, 'commitRef');
    const refDeletes = jest.spyOn(completer.repo, 'deleteRef');

    await completer.manager.moveRefs(
      [
        ...part1.blocks.map((block) => ({ block, from: 'p:u:1:a' })),
        ...part2.blocks.map((block) => ({ block, from: 'p:u:2:b' })),
      ],
      'v:done',
    );

    const blocks = [...part1.blocks, ...part2.blocks];
    expect(moves).toHaveBeenCalledTimes(blocks.length);
    expect(serialReads.mock.calls.every(([, linearizable]) => linearizable === false)).toBe(true);
    expect(refAdds).not.toHaveBeenCalled();
    expect(refDeletes).not.toHaveBeenCalled();
    for (const b of blocks) {
      expect(await refsOf(b.blockId)).toEqual(['v:done']);
      expect(await completer.manager.inspect(b.blockId)).toMatchObject({ status: 'committed', referenced: true });
      expect(await bed.store.exists(b.blockId)).toBe(true);
    }

    // a retried completion: the version holds them already, nothing changes and nothing fails
    await completer.manager.moveRefs(blocks.map((block) => ({ block, from: 'p:u:1:a' })), 'v:done');
    for (const b of blocks) expect(await refsOf(b.blockId)).toEqual(['v:done']);

    await uploader.manager.releaseRefs(blocks, 'v:done');
    for (const b of blocks) expect(await bed.store.exists(b.blockId)).toBe(false);
  });

  it('moves every reference a block has from the plan at once, and leaves other references alone', async () => {
    const { manager } = storage(bed.cassandra);
    const { blocks } = await manager.writeStream(bodyOf(pattern(16 * KiB, 43)));
    // one source block copied into two parts (UploadPartCopy), and an object sharing it
    await manager.addRefs(blocks, 'p:u:1:a');
    await manager.addRefs(blocks, 'p:u:2:b');
    await manager.addRefs(blocks, 'v:source');

    await manager.moveRefs(
      [
        { block: blocks[0], from: 'p:u:1:a' },
        { block: blocks[0], from: 'p:u:2:b' },
      ],
      'v:done',
    );

    expect(await refsOf(blocks[0].blockId)).toEqual(['v:done', 'v:source']);
    await manager.releaseRefs(blocks, 'v:source');
    expect(await bed.store.exists(blocks[0].blockId)).toBe(true);
    await manager.releaseRefs(blocks, 'v:done');
    expect(await bed.store.exists(blocks[0].blockId)).toBe(false);
  });

  it('finishes a move whose target was added the old way: the part reference still there is released', async () => {
    const { manager } = storage(bed.cassandra);
    const { blocks } = await manager.writeStream(bodyOf(pattern(16 * KiB, 44)));
    await manager.addRefs(blocks, 'p:u:1:a');
    await manager.addRefs(blocks, 'v:done'); // a completion by addRefs that died before releasing

    await manager.moveRefs([{ block: blocks[0], from: 'p:u:1:a' }], 'v:done');

    expect(await refsOf(blocks[0].blockId)).toEqual(['v:done']);
    expect(await bed.store.exists(blocks[0].blockId)).toBe(true);
    await manager.releaseRefs(blocks, 'v:done');
  });

  it('refuses a block that is gone, and loses to nothing in between: a stale hint is retried at SERIAL', async () => {
    const mine = storage(bed.cassandra);
    const gateway2 = storage(bed.other);
    const gone = await mine.manager.writeStream(bodyOf(pattern(16 * KiB, 45)));
    await mine.manager.addRefs(gone.blocks, 'p:u:1:a');
    await mine.manager.releaseRefs(gone.blocks, 'p:u:1:a');
    await expect(mine.manager.moveRefs([{ block: gone.blocks[0], from: 'p:u:1:a' }], 'v:done')).rejects.toBeInstanceOf(
      BlockUnavailableError,
    );
    expect(await refsOf(gone.blocks[0].blockId)).toEqual([]);

    // a reference added between the hint read and the compare-and-set: the round is lost and redone
    const { blocks } = await mine.manager.writeStream(bodyOf(pattern(16 * KiB, 46)));
    await mine.manager.addRefs(blocks, 'p:u:2:b');
    const read = mine.repo.read.bind(mine.repo);
    jest.spyOn(mine.repo, 'read').mockImplementationOnce(async (id, linearizable) => {
      const seen = await read(id, linearizable);
      await gateway2.manager.addRefs(blocks, 'v:copy'); // a CopyObject of a shared block meanwhile
      return seen;
    });
    await mine.manager.moveRefs([{ block: blocks[0], from: 'p:u:2:b' }], 'v:done');
    expect(await refsOf(blocks[0].blockId)).toEqual(['v:copy', 'v:done']);
    expect(await mine.metrics.render()).toMatch(/ostore_block_cas_conflicts_total\{op="move-ref"[^}]*\} 1\n/);
    await mine.manager.releaseRefs(blocks, 'v:copy');
    await mine.manager.releaseRefs(blocks, 'v:done');
    expect(await bed.store.exists(blocks[0].blockId)).toBe(false);
  });

  it('never leaves a reference to deleted bytes when a move races the release of the part reference', async () => {
    // an abort releasing the part while a completion on another gateway moves it: each block is
    // either moved (the version's reference, its bytes kept) or gone (no reference, no bytes); a
    // move refused for one block leaves the blocks it moved to the version (whose manifest the
    // completion keeps for its abort to release), as the BlockManager contract says
    const mine = storage(bed.cassandra);
    const gateway2 = storage(bed.other);
    const outcomes = { moved: 0, gone: 0, refusedCalls: 0 };
    for (let i = 0; i < 30; i++) {
      const { blocks } = await mine.manager.writeStream(bodyOf(pattern(1 + (i % 2) * 16 * KiB, 200 + i)));
      await mine.manager.addRefs(blocks, 'p:u:1:a');
      const move = new Promise((r) => setTimeout(r, i % 3)).then(() =>
        gateway2.manager.moveRefs(blocks.map((block) => ({ block, from: 'p:u:1:a' })), 'v:done'),
      );
      const [release, moved] = await Promise.allSettled([mine.manager.releaseRefs(blocks, 'p:u:1:a'), move]);
      expect(release.status).toBe('fulfilled');
      if (moved.status === 'rejected') {
        outcomes.refusedCalls++;
        expect(moved.reason).toBeInstanceOf(BlockUnavailableError);
      }
      for (const b of blocks) {
        const refs = await refsOf(b.blockId);
        if (refs.length > 0) {
          outcomes.moved++;
          expect(refs).toEqual(['v:done']);
          expect(await bed.store.exists(b.blockId)).toBe(true);
        } else {
          outcomes.gone++;
          expect(await bed.store.exists(b.blockId)).toBe(false);
          expect(await mine.manager.inspect(b.blockId)).toBeUndefined();
        }
      }
      if (moved.status === 'fulfilled') for (const b of blocks) expect(await refsOf(b.blockId)).toEqual(['v:done']);
      await gateway2.manager.releaseRefs(blocks, 'v:done');
      for (const b of blocks) expect(await bed.store.exists(b.blockId)).toBe(false);
    }
    expect(outcomes.moved + outcomes.gone).toBe(45);
    process.stdout.write(`moveRefs vs releaseRefs race (blocks): ${JSON.stringify(outcomes)}\n`);
  });
});
