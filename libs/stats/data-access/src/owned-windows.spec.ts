import { OwnedWindows } from './owned-windows';

const B = 'bucket-1';
const W = 300_000;
const sums = (bytes: number, events = 1) => ({ bytes, objects: events, events });
const win = (start: number, bytes: number, events = 1) => ({ start, sums: sums(bytes, events) });

describe(OwnedWindows.name, () => {
  let generation: number | undefined;
  let assigned: number[];
  let sut: OwnedWindows;

  beforeEach(() => {
    generation = 1;
    assigned = [0];
    sut = new OwnedWindows({ generation: () => generation, owns: (p) => assigned.includes(p) }, 2);
  });

  const put = (lease: string, ...windows: ReturnType<typeof win>[]) =>
    sut.recorded(
      0,
      lease,
      windows.map((w) => ({ bucketId: B, ...w })),
    );
  const seeded = (...windows: ReturnType<typeof win>[]) => {
    const token = sut.seedToken(B);
    expect(token).toBeDefined();
    expect(sut.seed(token!, W, 100 * W, windows)).toBe(true);
  };

  it('answers nothing for a bucket it has not seeded, then the seed plus the windows recorded since', () => {
    expect(sut.seedToken(B)).toBeUndefined();
    put('lease', win(2 * W, 10));
    expect(sut.since(B, W, 10 * W)).toBeUndefined();
    seeded(win(W, 1), win(2 * W, 10));
    expect(sut.since(B, W, 10 * W)).toEqual({ bytes: 11, objects: 2, events: 2 });
    put('lease', win(2 * W, 15, 2), win(3 * W, 100));
    expect(sut.since(B, W, 10 * W)).toEqual({ bytes: 116, objects: 4, events: 4 });
    // windows before the cut are not counted, windows at or after `to` neither
    expect(sut.since(B, 2 * W, 3 * W)).toEqual({ bytes: 15, objects: 2, events: 2 });
    // a cut before the seed's start (or before a cut asked for since), or a `to` after its end, is not known
    expect(sut.since(B, 0, 10 * W)).toBeUndefined();
    expect(sut.since(B, W, 10 * W)).toBeUndefined();
    expect(sut.since(B, 2 * W, 101 * W)).toBeUndefined();
  });

  it('keeps no seed read across a recorded change, a new lease or a new generation', () => {
    put('lease', win(W, 1));
    let token = sut.seedToken(B)!;
    put('lease', win(W, 2, 2));
    expect(sut.seed(token, W, 100 * W, [win(W, 1)])).toBe(false);
    expect(sut.since(B, W, 10 * W)).toBeUndefined();

    token = sut.seedToken(B)!;
    generation = 2;
    expect(sut.seed(token, W, 100 * W, [win(W, 2, 2)])).toBe(false);
  });

  it('forgets a partition when its generation, its lease or its assignment changes', () => {
    put('lease', win(W, 1));
    seeded(win(W, 1));
    expect(sut.since(B, W, 10 * W)).toBeDefined();
    generation = 2;
    expect(sut.since(B, W, 10 * W)).toBeUndefined();
    expect(sut.size).toBe(0);

    put('lease', win(W, 1));
    seeded(win(W, 1));
    put('other-lease', win(2 * W, 5));
    expect(sut.since(B, W, 10 * W)).toBeUndefined();

    seeded(win(W, 1), win(2 * W, 5));
    expect(sut.since(B, W, 10 * W)).toEqual({ bytes: 6, objects: 2, events: 2 });
    assigned = [];
    expect(sut.since(B, W, 10 * W)).toBeUndefined();
    assigned = [0];
    expect(sut.seedToken(B)).toBeUndefined();
  });

  it('answers nothing without a known generation, for buckets written elsewhere, and holds at most maxBuckets', () => {
    generation = undefined;
    put('lease', win(W, 1));
    expect(sut.seedToken(B)).toBeUndefined();
    generation = 1;
    put('lease', win(W, 1));
    seeded();
    sut.writtenElsewhere([B]);
    expect(sut.since(B, W, 10 * W)).toBeUndefined();
    sut.recorded(
      0,
      'lease',
      ['a', 'b', 'c'].map((bucketId) => ({ bucketId, start: W, sums: sums(1) })),
    );
    expect(sut.size).toBe(2);
  });
});
