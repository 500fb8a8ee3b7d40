import type { VersionLocator, VersionMetaRow } from './versions.repository';

/**
 * The `versions.meta_snapshot` cell (migration 006): a version's metadata as it was written, and
 * its body when the body is stored inline and small, so that GET/HEAD read one row.
 *
 * Layout: one format byte (1), a big-endian uint32 length, that many bytes of JSON (the metadata
 * fields of VersionMetaRow that do not locate the version, plus `body: true` when a body follows),
 * then the body bytes. A reader that meets an unknown format byte ignores the snapshot and reads
 * `version_meta` (the authoritative copy), so the format can change without a migration.
 */
const FORMAT = 1;
const HEADER = 5;

type SnapshotFields = Omit<VersionMetaRow, 'vid' | 'bucketId' | 'parent' | 'name' | 'vts' | 'inlineBody'>;

/**
 * The snapshot of `meta`, or undefined when the version should have none: an inline body larger
 * than `bodyMaxBytes` (GET would still need `version_meta` for it, and the directory partition
 * would carry the bytes for nothing).
 */
export function encodeMetaSnapshot(meta: VersionMetaRow, bodyMaxBytes: number): Buffer | undefined {
  const body = meta.inlineBody;
  if (body && body.length > bodyMaxBytes) return undefined;
  const fields: SnapshotFields & { body?: true } = {
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
    ...(body ? { body: true as const } : {}),
  };
  const json = Buffer.from(JSON.stringify(fields), 'utf8');
  const out = Buffer.allocUnsafe(HEADER + json.length + (body?.length ?? 0));
  out[0] = FORMAT;
  out.writeUInt32BE(json.length, 1);
  json.copy(out, HEADER);
  if (body) body.copy(out, HEADER + json.length);
  return out;
}

/** The metadata row a snapshot stands for, or undefined when it cannot be used (unknown format). */
export function decodeMetaSnapshot(snapshot: Buffer, loc: VersionLocator): VersionMetaRow | undefined {
  if (snapshot.length < HEADER || snapshot[0] !== FORMAT) return undefined;
  const end = HEADER + snapshot.readUInt32BE(1);
  if (end > snapshot.length) return undefined;
  const f = JSON.parse(snapshot.toString('utf8', HEADER, end)) as SnapshotFields & { body?: boolean };
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
    ...(f.body ? { inlineBody: snapshot.subarray(end) } : {}),
  };
}
