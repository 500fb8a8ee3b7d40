import {
  BucketSnapshotCodec,
  combineSnapshots,
  CompletedHostSnapshot,
  cutOf,
  emptyHostSnapshot,
  HostSnapshot,
  HostSnapshotCodec,
  mergeBlockTops,
  SnapshotAccumulator,
  SnapshotBlock,
  SnapshotFormatError,
  TOP_K,
} from './index';

const T0 = Date.UTC(2026, 11, 1, 10, 2, 0);
const blockPass = (startMs: number): HostSnapshot => ({
  ...emptyHostSnapshot(startMs),
  blocks: { blocks: 0, refs: 0, maxRefs: 0 },
});
const block = (id: string, refs: number, buckets: Record<string, number>, size = 65536): SnapshotBlock => ({
  blockId: id,
  size,
  refs,
  buckets,
  names: { b1: 'one', b2: 'two' },
});

describe('most-referenced blocks', () => {
  describe(SnapshotAccumulator.prototype.addBlock.name, () => {
    it('ranks a block in every bucket that references it, by all its references', () => {
      const sut = new SnapshotAccumulator(blockPass(T0));
      sut.addBlock(block('k1', 5, { b1: 3, b2: 2 }));
      sut.addBlock(block('k2', 7, { b2: 7 }, 100));
      sut.addBlock(block('k3', 1, {}));
      const s = sut.finish();
      expect(s.blocks).toEqual({ blocks: 3, refs: 13, maxRefs: 7 });
      expect(s.buckets['b1']).toMatchObject({
        name: 'one',
        bytes: 0,
        objects: 0,
        topBlocks: [{ name: 'k1', n: 5, size: 65536, buckets: { b1: 3, b2: 2 } }],
      });
      expect(s.buckets['b2'].topBlocks).toEqual([
        { name: 'k2', n: 7, size: 100, buckets: { b2: 7 } },
        { name: 'k1', n: 5, size: 65536, buckets: { b1: 3, b2: 2 } },
      ]);
      // a block with one reference shares nothing: counted, ranked nowhere
      expect(Object.keys(s.buckets).sort()).toEqual(['b1', 'b2']);
    });

    it('keeps the top K and names the buckets with the most references first', () => {
      const sut = new SnapshotAccumulator(blockPass(T0));
      for (let i = 0; i < TOP_K + 5; i++)
        sut.addBlock(block(`k${String(i).padStart(2, '0')}`, 2 + i, { b1: 2 + i }));
      const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x${i}`, i + 1]));
      sut.addBlock(block('wide', 100, { ...many, b1: 20 }));
      const top = sut.finish().buckets['b1'].topBlocks!;
      expect(top).toHaveLength(TOP_K);
      expect(top[0]).toEqual({
        name: 'wide',
        n: 100,
        size: 65536,
        buckets: { b1: 20, x7: 8, x6: 7, x5: 6, x4: 5 },
      });
      expect(top.slice(1).map((b) => b.n)).toEqual([16, 15, 14, 13, 12, 11, 10, 9, 8]);
    });

    it('goes on from its saved state exactly as if it had not stopped', () => {
      const blocks = Array.from({ length: 40 }, (_, i) =>
        block(`k${i}`, 1 + (i % 9), { b1: 1 + (i % 4), b2: i % 5 }),
      );
      const whole = new SnapshotAccumulator(blockPass(T0));
      blocks.forEach((b) => whole.addBlock(b));
      let part = new SnapshotAccumulator(blockPass(T0));
      blocks.forEach((b, i) => {
        if (i % 6 === 2)
          part = new SnapshotAccumulator(HostSnapshotCodec.decode(JSON.parse(JSON.stringify(part.snapshot))));
        part.addBlock(b);
      });
      expect(part.finish()).toEqual(whole.finish());
      expect(whole.snapshot.blocks).toEqual({
        blocks: 40,
        refs: blocks.reduce((a, b) => a + b.refs, 0),
        maxRefs: 9,
      });
    });
  });

  describe('codec', () => {
    it('reads snapshots written before blocks were counted, and refuses malformed block entries', () => {
      const old = emptyHostSnapshot(T0);
      const acc = new SnapshotAccumulator(old);
      acc.addObject({
        bucketId: 'b1',
        parent: '',
        name: 'o',
        current: { vts: (T0 - 1e6) * 1000, size: 3, storageClass: 'STANDARD', isDeleteMarker: false },
        noncurrent: [],
      });
      const decoded = HostSnapshotCodec.decode(JSON.parse(JSON.stringify(acc.finish())));
      expect(decoded.blocks).toBeUndefined();
      expect(decoded.buckets['b1'].topBlocks).toBeUndefined();
      const [bucket] = combineSnapshots([
        { source: 'a', handler: 'versions', completedAt: new Date(T0), snapshot: decoded },
      ])!.buckets;
      const { topBlocks: _, ...stored } = JSON.parse(BucketSnapshotCodec.encode(bucket));
      expect(BucketSnapshotCodec.decode(JSON.stringify(stored)).topBlocks).toEqual([]);

      const withBlocks = new SnapshotAccumulator(blockPass(T0));
      withBlocks.addBlock(block('k', 3, { b1: 3 }));
      const text = JSON.parse(JSON.stringify(withBlocks.finish()));
      expect(HostSnapshotCodec.decode(text)).toEqual(withBlocks.snapshot);
      text.buckets.b1.topBlocks[0].n = -1;
      expect(() => HostSnapshotCodec.decode(text)).toThrow(SnapshotFormatError);
      expect(() => HostSnapshotCodec.decode({ ...blockPass(T0), blocks: { blocks: 1 } })).toThrow(
        SnapshotFormatError,
      );
    });
  });

  describe(combineSnapshots.name, () => {
    const part = (source: string, handler: string, snapshot: HostSnapshot): CompletedHostSnapshot => ({
      source,
      handler,
      completedAt: new Date(T0 + 60_000),
      snapshot,
    });

    it("merges the hosts' lists exactly (each block on one host) and leaves the cut to the usage passes", () => {
      const usage = new SnapshotAccumulator(emptyHostSnapshot(T0));
      usage.addObject({
        bucketId: 'b1',
        bucket: 'one',
        parent: '',
        name: 'o',
        current: { vts: (T0 - 1e6) * 1000, size: 10, storageClass: 'STANDARD', isDeleteMarker: false },
        noncurrent: [],
      });
      // passes over block_refs many hours apart from the usage pass: no SnapshotsTooFarApartError, no earlier cut
      const a = new SnapshotAccumulator(blockPass(T0 - 10 * 3_600_000));
      a.addBlock(block('ka', 4, { b1: 4 }));
      a.addBlock(block('kshared', 9, { b1: 6, b2: 3 }));
      const b = new SnapshotAccumulator(blockPass(T0 + 5 * 3_600_000));
      b.addBlock(block('kb', 6, { b1: 1, b2: 5 }));
      const c = combineSnapshots([
        part('a', 'versions', usage.finish()),
        part('a', 'block_refs', a.finish()),
        part('b', 'block_refs', b.finish()),
      ])!;
      expect(c.cut).toEqual(new Date(cutOf(T0)));
      const [one, two] = c.buckets;
      expect(one).toMatchObject({ bucketId: 'b1', name: 'one', bytes: 10, objects: 1 });
      expect(one.topBlocks.map((x) => [x.name, x.n, x.buckets['b1']])).toEqual([
        ['kshared', 9, 6],
        ['kb', 6, 1],
        ['ka', 4, 4],
      ]);
      expect(two.topBlocks.map((x) => x.name)).toEqual(['kshared', 'kb']);
      expect(BucketSnapshotCodec.decode(BucketSnapshotCodec.encode(one))).toEqual(one);
    });

    it('combines nothing from block passes alone: they hold no usage at a cut', () => {
      const a = new SnapshotAccumulator(blockPass(T0));
      a.addBlock(block('k', 3, { b1: 3 }));
      expect(combineSnapshots([part('a', 'block_refs', a.finish())])).toBeUndefined();
    });

    it('keeps a block listed by two hosts once', () => {
      const x = { name: 'k', n: 3, size: 1, buckets: { b1: 3 } };
      expect(mergeBlockTops([[x], [{ ...x, n: 5 }], [{ name: 'j', n: 4, size: 1, buckets: {} }]])).toEqual([
        { ...x, n: 5 },
        { name: 'j', n: 4, size: 1, buckets: {} },
      ]);
    });
  });
});
