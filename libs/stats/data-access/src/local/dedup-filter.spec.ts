import { randomUUID } from 'crypto';
import { DedupFilters } from './dedup-filter';

const uuids = (n: number) => Array.from({ length: n }, () => randomUUID());

describe(DedupFilters.name, () => {
  it('holds every id it was given, across its growing segments', () => {
    const sut = new DedupFilters(64 * 1024 * 1024);
    const first = uuids(3000);
    const later = uuids(20_000);
    sut.reset('w1', first);
    for (let i = 0; i < later.length; i += 5000) sut.add('w1', later.slice(i, i + 5000));
    expect([...first, ...later].every((id) => sut.mayHold('w1', id))).toBe(true);
  });

  it('answers "not held" for nearly every id it was not given', () => {
    const sut = new DedupFilters(64 * 1024 * 1024);
    sut.reset('w1', uuids(30_000));
    const others = uuids(30_000);
    const falsePositives = others.filter((id) => sut.mayHold('w1', id)).length;
    // at least 12 bits and 8 probes per id: well under 1 % per segment, 4 segments at 30,000 ids
    expect(falsePositives / others.length).toBeLessThan(0.02);
  });

  it('keeps windows apart, and answers only for the windows it covers', () => {
    const sut = new DedupFilters(1024 * 1024);
    const ids = uuids(100);
    sut.reset('w1', ids);
    sut.add('w2', ids); // w2 has no filter: nothing to add to
    expect(sut.covers('w1')).toBe(true);
    expect(sut.covers('w2')).toBe(false);
    expect(ids.filter((id) => sut.mayHold('w1', id))).toHaveLength(100);
    sut.reset('w2', []);
    expect(ids.filter((id) => sut.mayHold('w2', id)).length).toBeLessThan(5);
    sut.drop('w1');
    expect(sut.covers('w1')).toBe(false);
  });

  it('a reset forgets what the window held before', () => {
    const sut = new DedupFilters(1024 * 1024);
    const before = uuids(1000);
    sut.reset('w1', before);
    const after = uuids(10);
    sut.reset('w1', after);
    expect(after.every((id) => sut.mayHold('w1', id))).toBe(true);
    expect(before.filter((id) => sut.mayHold('w1', id)).length).toBeLessThan(10);
  });

  it('stays within its budget by dropping the least recently written windows', () => {
    // a window of 1,000 ids takes one segment of 2 KiB: the budget holds three
    const sut = new DedupFilters(3 * 2048 + 512);
    for (let w = 0; w < 10; w++) sut.reset(`w${w}`, uuids(1000));
    expect([sut.size, sut.covers('w7'), sut.covers('w6')]).toEqual([3, true, false]);
    sut.add('w7', uuids(10)); // written last: kept before w8 and w9
    sut.reset('w10', uuids(1000));
    expect(sut.bytes).toBeLessThanOrEqual(3 * 2048 + 512);
    expect(['w0', 'w7', 'w8', 'w9', 'w10'].map((w) => sut.covers(w))).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
  });

  it('with no budget covers nothing', () => {
    const sut = new DedupFilters(0);
    sut.reset('w1', uuids(10));
    expect([sut.covers('w1'), sut.size, sut.bytes]).toEqual([false, 0, 0]);
  });
});
