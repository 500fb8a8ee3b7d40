import { compareUtf8 } from '@ostore/shared/cassandra';
import type { VersionLocator, VersionMetaRow } from './version.entity';

/**
 * The `versions.meta_snapshot` cell (migration 006): a version's metadata as it was written, so
 * that GET/HEAD read one row. One format byte (1), then JSON of the metadata fields of
 * VersionMetaRow that do not locate the version. A reader that meets an unknown format ignores the
 * snapshot and reads `version_meta`. For a version written with its body in the row and without
 * tags or encryption (the S3 core's rowOnlyMeta) there is no `version_meta` row: the snapshot is
 * the only copy of its metadata, so a new format must come with readers of every older one (format
 * 1 stays readable forever). This module owns the format: VersionsRepository.insertStatements
 * writes it (from RowExtras.meta) and versionRowOf reads it; nothing else encodes or decodes a
 * snapshot.
 */
const FORMAT = 1;

type SnapshotFields = Omit<VersionMetaRow, 'vid' | 'bucketId' | 'parent' | 'name' | 'vts' | 'inlineBody'>;

/**
 * The snapshot of `meta`, or undefined when the version should have none: one whose body is in
 * `version_meta.inline_body` (GET needs that row anyway, and its HEAD is not worth the bytes).
 */
export function encodeMetaSnapshot(meta: VersionMetaRow): Buffer | undefined {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the locating fields are left out
  const { vid, bucketId, parent, name, vts, inlineBody, ...fields } = meta;
  if (inlineBody) return undefined;
  return Buffer.concat([Buffer.from([FORMAT]), Buffer.from(JSON.stringify(fields satisfies SnapshotFields), 'utf8')]);
}

/**
 * A map as a read of its `map<text, text>` column returns it: keys in Cassandra's text order. A
 * snapshot keeps the writer's order (a PUT's `x-amz-tagging` order), so readers of either copy
 * must see the same order (GetObjectTagging lists tags by key, as S3 does).
 */
function inMapOrder(m: Record<string, string> | undefined): Record<string, string> {
  if (!m) return {};
  const keys = Object.keys(m);
  return keys.length < 2 ? m : Object.fromEntries(keys.sort(compareUtf8).map((k) => [k, m[k]!]));
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
  const { vid, bucketId, parent, name, vts } = loc;
  return {
    ...f,
    vid,
    bucketId,
    parent,
    name,
    vts,
    userMeta: inMapOrder(f.userMeta),
    tags: inMapOrder(f.tags),
    checksums: f.checksums ?? {},
  };
}
