import type { IndexRow, Metastore, UploadRow, VersionRow } from '@ostore/metastore/data-access';
import type { NameRange, TreeSource } from './tree-walker';

/** The `objects` index with `object_folders`: one row per current object. */
export function objectsSource(ms: Metastore, bucketId: string): TreeSource<IndexRow> {
  return {
    nameOf: (r) => r.name,
    leaves: (dir, range, limit, after) =>
      ms.objects.page(bucketId, dir, after ? { gt: after.name, lt: range.lt } : range, limit),
    folders: (dir, range, limit) => ms.objectFolders.page(bucketId, dir, range, limit),
  };
}

/** `versions` with `version_folders`: every version, marker and ghost, newest first per key. */
export function versionsSource(ms: Metastore, bucketId: string): TreeSource<VersionRow> {
  return {
    nameOf: (r) => r.name,
    leaves: (dir, range: NameRange, limit, after) => ms.versions.page(bucketId, dir, range, limit, after),
    folders: (dir, range, limit) => ms.versionFolders.page(bucketId, dir, range, limit),
  };
}

/** `uploads` with `upload_folders`: uploads of a key in initiation order. */
export function uploadsSource(ms: Metastore, bucketId: string): TreeSource<UploadRow> {
  return {
    nameOf: (r) => r.name,
    leaves: (dir, range, limit, after) => ms.uploads.page(bucketId, dir, range, limit, after),
    folders: (dir, range, limit) => ms.uploadFolders.page(bucketId, dir, range, limit),
  };
}
