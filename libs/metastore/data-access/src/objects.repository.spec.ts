import { decodeIndexEntry, encodeIndexEntry, IndexEntry } from './objects.repository';
import { nameRangeCql } from './statement';

describe(encodeIndexEntry.name, () => {
  const entry: IndexEntry = {
    vid: '0a1b2c3d-4e5f-1a2b-8c3d-4e5f6a7b8c9d',
    vts: 1_767_225_600_123_456,
    isNull: true,
    size: 42,
    etag: '"abc"',
    lastModified: new Date(1_767_225_600_123),
    storageClass: 'STANDARD',
    ownerId: 'alice',
    ownerName: 'Alice "A"',
    partCount: 3,
  };

  it('round-trips', () => {
    expect(decodeIndexEntry(encodeIndexEntry(entry))).toEqual(entry);
    const { partCount: _p, ...simple } = entry;
    expect(decodeIndexEntry(encodeIndexEntry(simple))).toEqual({ ...simple, partCount: undefined });
  });

  it('starts with the vid in hex, so the greater vid is the greater cell value', () => {
    const lower = encodeIndexEntry({ ...entry, vid: '0a1b2c3d-4e5f-1a2b-8c3d-4e5f6a7b8c9d', size: 999 });
    const higher = encodeIndexEntry({ ...entry, vid: '0a1b2c3d-4e5f-1a2b-a000-000000000000', size: 1 });
    expect(Buffer.compare(Buffer.from(higher), Buffer.from(lower))).toBeGreaterThan(0);
  });
});

describe(nameRangeCql.name, () => {
  it('renders the bounds it is given, skipping an empty inclusive lower bound', () => {
    const params: unknown[] = [];
    expect(nameRangeCql({ gt: 'a', lt: 'b' }, params)).toBe(' AND name > ? AND name < ?');
    expect(params).toEqual(['a', 'b']);
    expect(nameRangeCql({ gte: '' }, [])).toBe('');
    expect(nameRangeCql({ gte: 'x' }, [])).toBe(' AND name >= ?');
  });
});
