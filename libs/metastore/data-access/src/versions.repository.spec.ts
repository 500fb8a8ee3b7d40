import type { CassandraClient } from '@ostore/shared/cassandra';
import type { VersionMetaRow, VersionRow } from './version.entity';
import { VERSION_COLUMNS, versionRowOf } from './version-row.mapper';
import { VersionsRepository } from './versions.repository';

const row: VersionRow = {
  bucketId: 'b-1',
  parent: 'dir/',
  name: 'obj',
  vts: 1_767_225_600_123_456,
  vid: '0a1b2c3d-4e5f-1a2b-8c3d-4e5f6a7b8c9d',
  isNull: false,
  isDeleteMarker: false,
  isGhost: false,
  size: 5,
  etag: '"e"',
  lastModified: new Date(1_767_225_600_123),
  storageClass: 'STANDARD',
  ownerId: 'alice',
  ownerName: 'Alice',
};
const meta: VersionMetaRow = {
  vid: row.vid,
  bucketId: row.bucketId,
  parent: row.parent,
  name: row.name,
  vts: row.vts,
  contentType: 'text/plain',
  userMeta: { colour: 'blue' },
  tags: { team: 'storage' },
  checksums: {},
};

/** The cells an INSERT of insertStatements writes, by column name, as a read would return them. */
function cellsOf(params: unknown[]): Record<string, unknown> {
  const columns = [...VERSION_COLUMNS.split(', '), 'meta_snapshot', 'inline_body'];
  const cells = Object.fromEntries(columns.map((c, i) => [c, params[i]]));
  return { ...cells, vts: row.vts, size: row.size };
}

describe(VersionsRepository.name, () => {
  const sut = new VersionsRepository({} as CassandraClient);

  it('writes the snapshot of the given metadata into the row, which a read of the row decodes back', () => {
    const [insert] = sut.insertStatements(row, undefined, { meta, inlineBody: Buffer.from('hello') });
    const read = versionRowOf(cellsOf(insert.params));
    expect(read.snapshot).toEqual(meta);
    expect(read.inlineBody).toEqual(Buffer.from('hello'));
  });

  it('writes no snapshot without metadata, nor for a version whose body is in version_meta', () => {
    for (const extras of [{}, { meta: { ...meta, inlineBody: Buffer.alloc(9000) } }]) {
      const [insert] = sut.insertStatements(row, undefined, extras);
      expect(Buffer.isBuffer(cellsOf(insert.params)['meta_snapshot'])).toBe(false);
    }
  });
});
