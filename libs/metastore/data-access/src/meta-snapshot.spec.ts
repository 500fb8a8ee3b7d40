import { decodeMetaSnapshot, encodeMetaSnapshot } from './meta-snapshot';
import type { VersionMetaRow } from './version.entity';

const loc = { bucketId: 'b-1', parent: 'dir/', name: 'obj', vts: 1_700_000_000_000_123, vid: 'v-1' };
const meta: VersionMetaRow = {
  ...loc,
  contentType: 'text/plain; charset=utf-8',
  cacheControl: 'no-cache',
  expires: 'Thu, 01 Dec 2026 16:00:00 GMT',
  userMeta: { colour: 'blå', 'x-y': '1' },
  tags: { team: 'storage' },
  acl: 'public-read',
  checksums: { CRC32: 'AAAAAA==' },
};

describe('metadata snapshot of a version row', () => {
  it('round-trips the metadata, located by the row', () => {
    const back = decodeMetaSnapshot(encodeMetaSnapshot(meta)!, loc);
    expect(back).toEqual({
      ...meta,
      contentEncoding: undefined,
      contentLanguage: undefined,
      contentDisposition: undefined,
    });
  });

  it('fills absent maps so readers need no checks', () => {
    const bare = { ...loc, userMeta: undefined, tags: undefined, checksums: undefined } as unknown as VersionMetaRow;
    expect(decodeMetaSnapshot(encodeMetaSnapshot(bare)!, loc)).toMatchObject({ userMeta: {}, tags: {}, checksums: {} });
  });

  it('gives maps in the order a read of version_meta gives them (Cassandra text order), whatever the writer\'s order', () => {
    const written = { ...meta, tags: { foo: 'bar', bar: '', 'é': '1', Z: '2' }, userMeta: { zeta: '1', alpha: '2' } };
    const back = decodeMetaSnapshot(encodeMetaSnapshot(written)!, loc)!;
    expect(Object.keys(back.tags)).toEqual(['Z', 'bar', 'foo', 'é']);
    expect(back.tags).toEqual(written.tags);
    expect(Object.keys(back.userMeta)).toEqual(['alpha', 'zeta']);
  });

  it('writes no snapshot for a version whose body is in its metadata row (GET reads that row anyway)', () => {
    expect(encodeMetaSnapshot({ ...meta, inlineBody: Buffer.alloc(9000) })).toBeUndefined();
  });

  it('ignores snapshots it cannot read (another format, truncated), so readers fall back', () => {
    const snap = encodeMetaSnapshot(meta)!;
    expect(decodeMetaSnapshot(Buffer.concat([Buffer.from([2]), snap.subarray(1)]), loc)).toBeUndefined();
    expect(decodeMetaSnapshot(snap.subarray(0, 10), loc)).toBeUndefined();
    expect(decodeMetaSnapshot(Buffer.alloc(0), loc)).toBeUndefined();
  });
});
