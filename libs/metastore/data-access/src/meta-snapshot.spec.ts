import { decodeMetaSnapshot, encodeMetaSnapshot } from './meta-snapshot';
import type { VersionMetaRow } from './versions.repository';

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
  it('round-trips the metadata and a small inline body, located by the row', () => {
    const body = Buffer.from('hello, snapshot \u00e9');
    const snap = encodeMetaSnapshot({ ...meta, inlineBody: body }, body.length);
    expect(snap).toBeDefined();
    const back = decodeMetaSnapshot(snap!, loc)!;
    expect(back).toEqual({
      ...meta,
      contentEncoding: undefined,
      contentLanguage: undefined,
      contentDisposition: undefined,
      inlineBody: body,
    });
  });

  it('keeps an empty inline body apart from a block-stored one', () => {
    const empty = decodeMetaSnapshot(encodeMetaSnapshot({ ...meta, inlineBody: Buffer.alloc(0) }, 0)!, loc)!;
    expect(empty.inlineBody).toEqual(Buffer.alloc(0));
    const blocks = decodeMetaSnapshot(encodeMetaSnapshot(meta, 0)!, loc)!;
    expect(blocks).not.toHaveProperty('inlineBody');
    expect(blocks.userMeta).toEqual(meta.userMeta);
  });

  it('writes no snapshot for an inline body over the limit (GET reads version_meta for it)', () => {
    expect(encodeMetaSnapshot({ ...meta, inlineBody: Buffer.alloc(17) }, 16)).toBeUndefined();
    expect(encodeMetaSnapshot({ ...meta, inlineBody: Buffer.alloc(16) }, 16)).toBeDefined();
  });

  it('ignores snapshots it cannot read (another format, truncated), so readers fall back', () => {
    const snap = encodeMetaSnapshot(meta, 0)!;
    expect(decodeMetaSnapshot(Buffer.concat([Buffer.from([2]), snap.subarray(1)]), loc)).toBeUndefined();
    expect(decodeMetaSnapshot(snap.subarray(0, 10), loc)).toBeUndefined();
    expect(decodeMetaSnapshot(Buffer.alloc(0), loc)).toBeUndefined();
  });
});
