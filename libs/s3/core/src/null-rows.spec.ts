import type { NullRowRef } from '@ostore/metastore/data-access';
import { staleNullRows } from './null-rows';

const row = (vts: number, vid: string): NullRowRef => ({ bucketId: 'b', parent: 'p/', name: 'k', vts, vid });

describe('staleNullRows', () => {
  const old = row(10, 'old');
  const mine = row(20, 'mine');
  const newer = row(30, 'newer');

  it('keeps the newest row read and removes the others', () => {
    expect(staleNullRows([newer, mine, old], mine)).toEqual([mine, old]);
    expect(staleNullRows([mine, old], mine)).toEqual([old]);
    expect(staleNullRows([mine], mine)).toEqual([]);
    expect(staleNullRows([newer, old])).toEqual([old]);
    expect(staleNullRows([])).toEqual([]);
  });

  it('removes an older first row when the caller\'s own newer row is no longer there (an expired ghost)', () => {
    expect(staleNullRows([old], mine)).toEqual([old]);
    expect(staleNullRows([row(15, 'b'), old], mine)).toEqual([row(15, 'b'), old]);
  });

  it('keeps a newer first row when the caller\'s own row is gone (a newer writer removed it)', () => {
    expect(staleNullRows([newer, old], mine)).toEqual([old]);
    expect(staleNullRows([newer], mine)).toEqual([]);
  });

  it('keeps a first row of the same timestamp as the caller\'s missing row (not known to be older)', () => {
    expect(staleNullRows([row(20, 'other')], mine)).toEqual([]);
  });
});
