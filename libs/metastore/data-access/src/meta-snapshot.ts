import type { VersionLocator, VersionMetaRow } from './versions.repository';

/**
 * The `versions.meta_snapshot` cell (migration 006): a version's metadata as it was written, so
 * that GET/HEAD read one row. One format byte (1), then JSON of the metadata fields of
 * VersionMetaRow that do not locate the version. A reader that meets an unknown format ignores the
 * snapshot and reads `version_meta` (the authoritative copy), so the format can change without a
 * migration.
 */
const FORMAT = 1;

type SnapshotFields = Omit<VersionMetaRow, 'vid' | 'bucketId' | 'parent' | 'name' | 'vts' | 'inlineBody'>;

/**
 * The snapshot of `meta`, or undefined when the version should have none: one whose body is in
 * `version_meta.inline_body` (GET needs that row anyway, and its HEAD is not worth the bytes).
 */
export function encodeMetaSnapshot(meta: VersionMetaRow): Buffer | undefined {
  if (meta.inlineBody) return undefined;
  const fields: SnapshotFields = {
    contentType: meta.contentType,
    contentEncoding: meta.contentEncoding,
    contentLanguage: meta.contentLanguage,
    contentDisposition: meta.contentDisposition,
    cacheControl: meta.cacheControl,
    expires: meta.expires,
    userMeta: meta.userMeta,
    tags: meta.tags,
    acl: meta.acl,
    checksums: meta.checksums,
  };
  return Buffer.concat([Buffer.from([FORMAT]), Buffer.from(JSON.stringify(fields), 'utf8')]);
}

/** The metadata row a snapshot stands for, or undefined when it cannot be used (unknown format). */
export function decodeMetaSnapshot(snapshot: Buffer, loc: VersionLocator): VersionMetaRow | undefined {
  if (snapshot.length < 2 || snapshot[0] !== FORMAT) return undefined;
  let f: SnapshotFields;
  try {
    f = JSON.parse(snapshot.toString('utf8', 1)) as SnapshotFields;
  } catch {
    return undefined;
  }
  return {
    vid: loc.vid,
    bucketId: loc.bucketId,
    parent: loc.parent,
    name: loc.name,
    vts: loc.vts,
    contentType: f.contentType,
    contentEncoding: f.contentEncoding,
    contentLanguage: f.contentLanguage,
    contentDisposition: f.contentDisposition,
    cacheControl: f.cacheControl,
    expires: f.expires,
    userMeta: f.userMeta ?? {},
    tags: f.tags ?? {},
    acl: f.acl,
    checksums: f.checksums ?? {},
  };
}
