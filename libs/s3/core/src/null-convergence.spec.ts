import { NullConvergencePolicy, NullWrite, RecentKeys } from './null-convergence';

describe('RecentKeys', () => {
  it('tells whether a key was touched before, and forgets the least recently touched first', () => {
    const recent = new RecentKeys(2);
    expect(recent.touch('a')).toBe(false);
    expect(recent.touch('b')).toBe(false);
    expect(recent.touch('a')).toBe(true); // a is now the most recent
    expect(recent.touch('c')).toBe(false); // b, the least recent, is forgotten
    expect(recent.size).toBe(2);
    expect(recent.touch('a')).toBe(true);
    expect(recent.touch('b')).toBe(false);
  });

  it('answers as a plain least-recently-used list would, over many touches of few keys', () => {
    const recent = new RecentKeys(5);
    const reference: string[] = []; // most recent last
    let seed = 7;
    for (let i = 0; i < 5_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const key = `k${seed % 9}`;
      const at = reference.indexOf(key);
      if (at >= 0) reference.splice(at, 1);
      reference.push(key);
      if (reference.length > 5) reference.shift();
      expect(recent.touch(key)).toBe(at >= 0);
      expect(recent.size).toBe(reference.length);
    }
  });

  it('remembers nothing with no room', () => {
    const recent = new RecentKeys(0);
    expect(recent.touch('a')).toBe(false);
    expect(recent.touch('a')).toBe(false);
    expect(recent.size).toBe(0);
  });
});

describe('NullConvergencePolicy', () => {
  const bucket = { bucketId: 'b1', name: 'logs', versioning: 'Unversioned' };
  const object = (key: string, extra: Partial<NullWrite> = {}): NullWrite => ({ bucket, key, kind: 'object', isNull: true, ...extra });
  const policy = (nullConvergence: 'write' | 'scan', recentNullKeys = 10) => {
    const counted = { deferred: 0 };
    const sut = new NullConvergencePolicy({ nullConvergence, recentNullKeys }, { failed: () => undefined, deferred: () => counted.deferred++ });
    return { sut, counted };
  };

  it("'write': every null version's writer converges, a non-null one or a lifecycle write never does", () => {
    const { sut, counted } = policy('write');
    expect(sut.convergesAtWrite(object('k'))).toBe(true);
    expect(sut.convergesAtWrite(object('k'))).toBe(true);
    expect(sut.convergesAtWrite(object('k', { isNull: false }))).toBe(false);
    expect(sut.convergesAtWrite(object('k', { deferNullConvergence: true }))).toBe(false);
    expect(counted.deferred).toBe(0);
  });

  it("'scan': an object's first write is left to the scan and counted; its rewrite converges", () => {
    const { sut, counted } = policy('scan');
    expect(sut.convergesAtWrite(object('k'))).toBe(false);
    expect(counted.deferred).toBe(1);
    expect(sut.convergesAtWrite(object('k'))).toBe(true);
    expect(sut.convergesAtWrite(object('other'))).toBe(false);
    expect(sut.convergesAtWrite(object('k', { bucket: { ...bucket, bucketId: 'b2' } }))).toBe(false); // same key, another bucket
    expect(counted.deferred).toBe(3);
  });

  it("'scan': markers, ghosts and quota buckets converge at once", () => {
    const { sut, counted } = policy('scan');
    expect(sut.convergesAtWrite(object('k', { kind: 'ghost' }))).toBe(true);
    expect(sut.convergesAtWrite(object('k', { kind: 'marker' }))).toBe(true);
    expect(sut.convergesAtWrite(object('q', { bucket: { ...bucket, quotaBytes: 100 } }))).toBe(true);
    expect(sut.convergesAtWrite(object('q', { bucket: { ...bucket, quotaObjects: 0 } }))).toBe(true);
    expect(sut.convergesAtWrite(object('k', { isNull: false }))).toBe(false);
    expect(counted.deferred).toBe(0);
  });
});
