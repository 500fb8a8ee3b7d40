import type { VersionRow } from '@ostore/metastore/data-access';
import { encodeId, makeVid, uuidString } from '../version-ids';
import { versionGroupOf } from './version-group';

let vts = 1_780_000_000_000_000;
function row(more: Partial<VersionRow> = {}): VersionRow {
  vts -= 1000;
  return {
    bucketId: 'b',
    parent: '',
    name: 'k',
    vts,
    vid: uuidString(makeVid(vts)),
    isNull: false,
    isDeleteMarker: false,
    isGhost: false,
    size: 5,
    etag: '"e"',
    lastModified: new Date(Math.floor(vts / 1000)),
    storageClass: 'STANDARD',
    ownerId: 'o',
    ownerName: 'O',
    ...more,
  };
}

describe(versionGroupOf.name, () => {
  const sut = versionGroupOf;

  it('shows the rows as readers do: the newest is current, versions newest first, ids as S3 shows them', () => {
    const a = row();
    const m = row({ isDeleteMarker: true, size: 0 });
    const n = row({ isNull: true });
    const view = sut('k', 'Enabled', [a, m, n], true, new Map([[a.vid, { t: '1' }]]));
    expect(view.current).toBe(a);
    expect(view.group).toEqual({
      key: 'k',
      versioning: 'Enabled',
      keptAll: true,
      versions: [
        { versionId: encodeId(a.vid), isLatest: true, isDeleteMarker: false, size: 5, lastModified: a.lastModified, storageClass: 'STANDARD', tags: { t: '1' } },
        { versionId: encodeId(m.vid), isLatest: false, isDeleteMarker: true, size: 0, lastModified: m.lastModified, storageClass: 'STANDARD' },
        { versionId: 'null', isLatest: false, isDeleteMarker: false, size: 5, lastModified: n.lastModified, storageClass: 'STANDARD', tags: {} },
      ],
    });
  });

  it('counts only the newest null row; older ones are stale', () => {
    const n1 = row({ isNull: true });
    const n2 = row({ isNull: true });
    const view = sut('k', 'Unversioned', [n1, n2], true);
    expect(view.visible).toEqual([n1]);
    expect(view.staleNulls).toEqual([n2]);
    expect(view.group.versions.map((v) => v.versionId)).toEqual(['null']);
  });

  it('a ghost hides the null version beneath it and nothing is current', () => {
    const g = row({ isNull: true, isDeleteMarker: true, isGhost: true, size: 0 });
    const n = row({ isNull: true });
    const view = sut('k', 'Unversioned', [g, n], true);
    expect(view.current).toBeUndefined();
    expect(view.group.versions).toEqual([]);
    expect(view.staleNulls).toEqual([n]);
  });

  it('adds a row read beyond the window, and then the group is not complete', () => {
    const a = row();
    const far = row();
    const view = sut('k', 'Enabled', [a], false, new Map(), far);
    expect(view.visible).toEqual([a, far]);
    expect(view.group.keptAll).toBe(false);
    expect(view.group.versions[1].isLatest).toBe(false);
  });
});
