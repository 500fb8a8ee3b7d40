import { decodeMetaSnapshot } from './meta-snapshot';
import { mapOf, num, optNum, optStr, str } from './statement';
import type { RowReadOptions, VersionMetaRow, VersionRow } from './version.entity';

/** The plain columns of `versions`, in the order insertStatements binds them. */
export const VERSION_COLUMNS =
  'bucket_id, parent, name, vts, vid, is_null, is_delete_marker, is_ghost, size, etag, last_modified, storage_class, owner_id, owner_name, part_count';

/** A `versions` row as read; its snapshot decoded when the read selected it and it is readable. */
export function versionRowOf(r: Record<string, unknown>): VersionRow {
  const row: VersionRow = {
    bucketId: str(r['bucket_id']),
    parent: str(r['parent']),
    name: str(r['name']),
    vts: num(r['vts']),
    vid: str(r['vid']),
    isNull: r['is_null'] === true,
    isDeleteMarker: r['is_delete_marker'] === true,
    isGhost: r['is_ghost'] === true,
    size: num(r['size']),
    etag: str(r['etag']),
    lastModified: (r['last_modified'] as Date) ?? new Date(0),
    storageClass: str(r['storage_class']) || 'STANDARD',
    ownerId: str(r['owner_id']),
    ownerName: str(r['owner_name']),
    partCount: optNum(r['part_count']),
  };
  const snapshot = r['meta_snapshot'];
  if (Buffer.isBuffer(snapshot)) {
    const meta = decodeMetaSnapshot(snapshot, row);
    if (meta) row.snapshot = meta;
  }
  const body = r['inline_body'];
  if (Buffer.isBuffer(body)) row.inlineBody = body;
  return row;
}

/** The columns a read selects: with `body`, also the snapshot and the inline body. */
export const columnsOf = (options: RowReadOptions): string =>
  options.body ? `${VERSION_COLUMNS}, meta_snapshot, inline_body` : VERSION_COLUMNS;

/** The columns of `version_meta` besides its inline body. */
export const META_COLUMNS =
  'vid, bucket_id, parent, name, vts, content_type, content_encoding, content_language, content_disposition, cache_control, expires, user_meta, tags, acl, checksums, sse';

/** A `version_meta` row as read (selected with META_COLUMNS, and `inline_body` when asked for). */
export function versionMetaRowOf(r: Record<string, unknown>): VersionMetaRow {
  const inline = r['inline_body'];
  return {
    vid: str(r['vid']),
    bucketId: str(r['bucket_id']),
    parent: str(r['parent']),
    name: str(r['name']),
    vts: num(r['vts']),
    contentType: optStr(r['content_type']),
    contentEncoding: optStr(r['content_encoding']),
    contentLanguage: optStr(r['content_language']),
    contentDisposition: optStr(r['content_disposition']),
    cacheControl: optStr(r['cache_control']),
    expires: optStr(r['expires']),
    userMeta: mapOf(r['user_meta']),
    tags: mapOf(r['tags']),
    acl: optStr(r['acl']),
    checksums: mapOf(r['checksums']),
    ...(optStr(r['sse']) ? { sse: optStr(r['sse']) } : {}),
    ...(Buffer.isBuffer(inline) ? { inlineBody: inline } : {}),
  };
}
