import {
  BucketSnapshotCodec,
  combineSnapshots,
  CUT_GRID_MS,
  cutOf,
  emptyHostSnapshot,
  HostSnapshotCodec,
  mergeTops,
  nextPassDue,
  offerTop,
  Ranked,
  replacesHostSnapshot,
  SnapshotAccumulator,
  SnapshotFormatError,
  SnapshotObject,
  SnapshotsTooFarApartError,
  SnapshotVersion,
  usageFrom,
} from './index';

const T0 = Date.UTC(2026, 11, 1, 10, 2, 0);
const v = (atMs: number, size: number, o: Partial<SnapshotVersion> = {}): SnapshotVersion => ({
  vts: atMs * 1000,
  size,
  storageClass: 'STANDARD',
  isDeleteMarker: false,
  ...o,
});
const obj = (
  parent: string,
  name: string,
  versions: SnapshotVersion[],
  more: Partial<SnapshotObject> = {},
): SnapshotObject => ({
  bucketId: 'b1',
  bucket: 'one',
  parent,
  name,
  current: versions[0],
  noncurrent: versions.slice(1),
  ...more,
});

describe(SnapshotAccumulator.name, () => {
  it('counts what was written before the cut and leaves later versions to the deltas', () => {
    const sut = new SnapshotAccumulator(emptyHostSnapshot(T0));
    const cut = cutOf(T0);
    expect(cut).toBe(Date.UTC(2026, 11, 1, 10, 0, 0));
    sut.addObject(obj('a/', 'x', [v(cut - 10, 100), v(cut - 20, 30, { storageClass: 'GLACIER' })]));
    sut.addObject(obj('a/', 'y', [v(cut + 10, 7), v(cut - 30, 5)]));
    sut.addObject(obj('a/', 'z', [v(cut - 5, 0, { isDeleteMarker: true }), v(cut - 40, 9)]));
    sut.addUploads({
      bucketId: 'b1',
      uploads: 1,
      parts: [
        { size: 11, atMs: cut - 1 },
        { size: 13, atMs: cut },
      ],
    });
    const t = sut.finish().buckets['b1'];
    expect(t).toMatchObject({
      name: 'one',
      bytes: 100 + 30 + 5 + 9 + 11,
      objects: 1,
      versions: 4,
      deleteMarkers: 1,
      uploads: 1,
      uploadBytes: 11,
      newer: { versions: 1, bytes: 7 },
      classes: { STANDARD: { current: 100, noncurrent: 14 }, GLACIER: { current: 0, noncurrent: 30 } },
      topDirectories: [{ name: 'a/', n: 1 }],
    });
    expect(t.topBySize[0]).toEqual({ name: 'a/x', n: 130 });
  });

  it('goes on counting from its saved state exactly as if it had not stopped', () => {
    const objects = Array.from({ length: 30 }, (_, i) =>
      obj(`d${i % 3}/`, `k${String(i).padStart(2, '0')}`, [v(T0 - 60_000 * (i + 10), i + 1), v(T0 - 9e6, 2)]),
    ).sort((a, b) => (a.parent + a.name < b.parent + b.name ? -1 : 1));
    const whole = new SnapshotAccumulator(emptyHostSnapshot(T0));
    objects.forEach((o) => whole.addObject(o));
    let part = new SnapshotAccumulator(emptyHostSnapshot(T0));
    objects.forEach((o, i) => {
      if (i % 7 === 3)
        part = new SnapshotAccumulator(HostSnapshotCodec.decode(JSON.parse(JSON.stringify(part.snapshot))));
      part.addObject(o);
    });
    expect(part.finish()).toEqual(whole.finish());
    expect(whole.snapshot.buckets['b1'].topDirectories).toEqual([
      { name: 'd0/', n: 10 },
      { name: 'd1/', n: 10 },
      { name: 'd2/', n: 10 },
    ]);
  });

  it('counts the anomalies: objects over 100 versions, overdue versions', () => {
    const sut = new SnapshotAccumulator(emptyHostSnapshot(T0));
    sut.addObject(
      obj(
        '',
        'many',
        Array.from({ length: 101 }, (_, i) => v(T0 - 1e7 - i, 1)),
        { overdue: 3 },
      ),
    );
    sut.addObject(
      obj(
        '',
        'few',
        Array.from({ length: 100 }, (_, i) => v(T0 - 1e7 - i, 1)),
      ),
    );
    expect(sut.finish().buckets['b1'].anomalies).toEqual({
      overdueVersions: 3,
      objectsOver100Versions: 1,
      directoriesOver100k: 0,
    });
    expect(sut.snapshot.buckets['b1'].topByVersions.map((r) => r.name)).toEqual(['many', 'few']);
  });
});

describe(combineSnapshots.name, () => {
  const host = (source: string, startMs: number, objects: SnapshotObject[]) => {
    const acc = new SnapshotAccumulator(emptyHostSnapshot(startMs));
    objects.forEach((o) => acc.addObject(o));
    return { source, handler: 'versions', completedAt: new Date(startMs + 60_000), snapshot: acc.finish() };
  };

  it('brings every host to the earliest cut with its per-window sums', () => {
    const early = T0;
    const late = T0 + 40 * 60_000;
    const a = host('a', early, [obj('', 'a1', [v(T0 - 1e6, 10)])]);
    // written between the two cuts: host b counted it, the combined snapshot must not (its delta comes after the common cut)
    const b = host('b', late, [obj('', 'b1', [v(T0 - 1e6, 20)]), obj('', 'b2', [v(early + 10 * 60_000, 5)])]);
    const c = combineSnapshots([a, b])!;
    expect(c.cut).toEqual(new Date(cutOf(early)));
    expect(c.parts).toEqual(['a/versions', 'b/versions']);
    expect(c.buckets).toHaveLength(1);
    expect(c.buckets[0]).toMatchObject({ bucketId: 'b1', bytes: 30, objects: 2, versions: 2 });
    expect(c.oldestCompletedAt).toEqual(new Date(early + 60_000));
  });

  it('brings the bytes per storage class to the common cut too', () => {
    const early = T0;
    const late = T0 + 40 * 60_000;
    const a = host('a', early, [obj('', 'a1', [v(T0 - 1e6, 10, { storageClass: 'GLACIER' })])]);
    // host b read b1 after a new current version (written between the cuts, in STANDARD_IA) replaced
    // a GLACIER one: the new version is taken out; the old one stays, counted as host b read it
    const b = host('b', late, [
      obj('', 'b1', [
        v(early + 10 * 60_000, 5, { storageClass: 'STANDARD_IA' }),
        v(T0 - 1e6, 20, { storageClass: 'GLACIER' }),
      ]),
      obj('', 'b2', [v(early + 15 * 60_000, 7)]),
    ]);
    const [bucket] = combineSnapshots([a, b])!.buckets;
    expect(bucket.classes).toEqual({
      GLACIER: { current: 10, noncurrent: 20 },
      STANDARD_IA: { current: 0, noncurrent: 0 },
      STANDARD: { current: 0, noncurrent: 0 },
    });
    expect(bucket.bytes).toBe(30);
    // a snapshot stored by a build without per-class windows still reads (classes at its own cut)
    const { recentClasses: _, ...old } = b.snapshot.buckets['b1'];
    expect(
      HostSnapshotCodec.decode({ ...b.snapshot, buckets: { b1: old } }).buckets['b1'].recentClasses,
    ).toBeUndefined();
  });

  it('refuses hosts whose lookback does not reach the common cut', () => {
    const a = host('a', T0, []);
    const b = host('b', T0 + 3 * 3_600_000, []);
    expect(() => combineSnapshots([a, b])).toThrow(SnapshotsTooFarApartError);
    expect(combineSnapshots([])).toBeUndefined();
  });

  it('stores a bucket snapshot in one format and reads it back; anything else is refused', () => {
    const c = combineSnapshots([host('a', T0, [obj('p/', 'n', [v(T0 - 1e6, 10)])])])!;
    expect(BucketSnapshotCodec.decode(BucketSnapshotCodec.encode(c.buckets[0]))).toEqual(c.buckets[0]);
    expect(() => BucketSnapshotCodec.decode('{"v":2}')).toThrow(SnapshotFormatError);
    expect(() => HostSnapshotCodec.decode({ v: 1, cutMs: 1, lookbackMs: 1, buckets: {}, extra: 1 })).toThrow(
      SnapshotFormatError,
    );
  });
});

describe(offerTop.name, () => {
  it('keeps the k heaviest, ties by name, and merges lists', () => {
    const list: Ranked[] = [];
    for (const [name, n] of [
      ['a', 1],
      ['b', 5],
      ['c', 3],
      ['d', 5],
      ['e', 0],
    ] as const)
      offerTop(list, { name, n }, 3);
    expect(list).toEqual([
      { name: 'b', n: 5 },
      { name: 'd', n: 5 },
      { name: 'c', n: 3 },
    ]);
    expect(mergeTops([list, [{ name: 'z', n: 4 }]], 2)).toEqual([
      { name: 'b', n: 5 },
      { name: 'd', n: 5 },
    ]);
  });
});

describe(usageFrom.name, () => {
  it('adds the deltas after the cut to the snapshot', () => {
    const c = combineSnapshots([
      { source: 'a', handler: 'versions', completedAt: new Date(T0), snapshot: emptyHostSnapshot(T0) },
    ])!;
    expect(CUT_GRID_MS).toBe(300_000);
    expect(usageFrom('b', undefined, { bytes: 5, objects: 1, events: 2 }, new Date(T0))).toEqual({
      bucketId: 'b',
      bytes: 5,
      objects: 1,
      deltaEvents: 2,
      asOf: new Date(T0),
    });
    expect(c.buckets).toEqual([]);
  });

  it('counts objects as the deltas and the recount do: every version holding data, noncurrent ones too', () => {
    // a versioned bucket before the cut: x has a noncurrent version, z's data version lies under a
    // delete marker; after the cut one new version of x (+1 object in its delta)
    const cut = cutOf(T0);
    const acc = new SnapshotAccumulator(emptyHostSnapshot(T0));
    acc.addObject(obj('', 'x', [v(cut - 10, 100), v(cut - 20, 30)]));
    acc.addObject(obj('', 'z', [v(cut - 5, 0, { isDeleteMarker: true }), v(cut - 40, 9)]));
    const [bucket] = combineSnapshots([
      { source: 'a', handler: 'versions', completedAt: new Date(T0), snapshot: acc.finish() },
    ])!.buckets;
    expect(bucket).toMatchObject({ objects: 1, versions: 3 });
    // the exact recount counts 4 version rows holding data: x's three and z's one
    expect(usageFrom('b1', bucket, { bytes: 50, objects: 1, events: 1 }, new Date(T0))).toMatchObject({
      bytes: 189,
      objects: 4,
    });
  });
});

describe(replacesHostSnapshot.name, () => {
  const C = cutOf(T0);
  it('keeps the first completed pass of a cut; a pass at a later cut, or the first one, replaces', () => {
    const later = emptyHostSnapshot(C + 4 * 60_000);
    expect(later.cutMs).toBe(C);
    expect(replacesHostSnapshot(new Date(C + 1000), later)).toBe(false);
    expect(replacesHostSnapshot(new Date(C - 1000), later)).toBe(true);
    expect(replacesHostSnapshot(undefined, later)).toBe(true);
    expect(replacesHostSnapshot(new Date(C + 1000), emptyHostSnapshot(C + CUT_GRID_MS))).toBe(true);
  });

  it('a pass over block_refs (no cut of its own) always replaces', () => {
    const blocks = { ...emptyHostSnapshot(C + 2000), blocks: { blocks: 0, refs: 0, maxRefs: 0 } };
    expect(replacesHostSnapshot(new Date(C + 1000), blocks)).toBe(true);
  });
});

describe(nextPassDue.name, () => {
  const at = (hhmmss: string) => Date.parse(`2026-12-05T${hhmmss}.000Z`);
  const min = 60_000;

  it('keeps passes of 5 minutes or more on the cut grid: a pass starts at its own cut', () => {
    // a pass that started late in its window (timers, a restart) does not drag the next one off the grid
    expect(nextPassDue(at('10:00:00') + 50, 60 * min)).toBe(at('11:00:00'));
    expect(nextPassDue(at('10:03:17'), 60 * min)).toBe(at('11:00:00'));
    expect(nextPassDue(at('10:04:59'), 5 * min)).toBe(at('10:05:00'));
    expect(cutOf(nextPassDue(at('10:03:17'), 60 * min))).toBe(nextPassDue(at('10:03:17'), 60 * min));
  });

  it('rounds an interval that is not a multiple of the grid up to one', () => {
    expect(nextPassDue(at('10:00:00'), 7 * min)).toBe(at('10:10:00'));
    expect(nextPassDue(at('10:00:00'), 10 * min + 1)).toBe(at('10:15:00'));
  });

  it('leaves shorter intervals as they are', () => {
    expect(nextPassDue(at('10:03:17'), 1000)).toBe(at('10:03:18'));
    expect(nextPassDue(at('10:03:17'), CUT_GRID_MS - 1)).toBe(at('10:03:17') + CUT_GRID_MS - 1);
  });
});
