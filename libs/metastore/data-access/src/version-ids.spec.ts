import { FakeClock } from '@ostore/shared/clock/testing';
import { decodeId, encodeId, makeVid, uuidString, VersionClock, vtsOfVid } from './version-ids';

describe(VersionClock.name, () => {
  it('is strictly increasing and near the clock in microseconds', () => {
    const clock = new FakeClock(1_700_000_000_000);
    const sut = new VersionClock(clock);
    let prev = 0;
    for (let i = 0; i < 5000; i++) {
      const v = sut.next();
      expect(v).toBeGreaterThan(prev);
      prev = v;
    }
    expect(prev).toBeGreaterThanOrEqual(1_700_000_000_000_000);
    clock.advance(10);
    expect(sut.next()).toBeGreaterThanOrEqual(1_700_000_000_010_000);
  });
});

describe(makeVid.name, () => {
  it('gives distinct random bits to vids of the same vts, across refills of its random pool', () => {
    const vids = Array.from({ length: 1000 }, () => uuidString(makeVid(1_767_225_600_123_456)));
    expect(new Set(vids).size).toBe(1000);
    // the random part (byte 8 on) is spread, not a counter: most bytes differ between neighbours
    const tails = vids.map((v) => v.slice(19));
    expect(tails.filter((t, i) => i > 0 && t.slice(0, 4) === tails[i - 1].slice(0, 4)).length).toBeLessThan(20);
  });

  it('is a version-1 uuid carrying the vts, and round-trips through the public id', () => {
    const vts = 1_767_225_600_123_456;
    const vid = makeVid(vts);
    expect(vtsOfVid(vid)).toBe(vts);
    const uuid = uuidString(vid);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const id = encodeId(uuid);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(decodeId(id)).toBe(uuid);
  });

  it('ranks markers above objects of the same vts, as unsigned bytes', () => {
    for (let i = 0; i < 200; i++) {
      const o = makeVid(5, 'object');
      const m = makeVid(5, 'marker');
      expect(Buffer.compare(m, o)).toBeGreaterThan(0);
      for (let b = 9; b < 16; b++) expect(o[b]).toBeLessThan(0x80);
    }
  });

  it('rejects ids that are not ours', () => {
    expect(decodeId('null')).toBeUndefined();
    expect(decodeId('x'.repeat(22))).toBeUndefined();
    expect(decodeId('3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY')).toBeUndefined();
    expect(decodeId(encodeId(uuidString(makeVid(1))).slice(0, 21) + '!')).toBeUndefined();
  });
});
