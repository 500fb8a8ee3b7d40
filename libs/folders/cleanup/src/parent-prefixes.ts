/** The folder index a directory belongs to (the `kind` of a FolderCandidate). */
export type DirectoryKind = 'object' | 'version' | 'upload';

/**
 * The directories a key is inside of, as the folder index names them: every prefix of the key up
 * to and including a '/', shortest first ("a/b/c.png" → "a/", "a/b/"; "a/b/" → "a/", "a/b/";
 * "a//b" → "a/", "a//"; "a/b-c" → "a/"; "top" → none). Only '/' makes directories: a listing's
 * other delimiters ("-") group keys but have no folder rows. Strings are compared and hashed as
 * JavaScript strings, so any Unicode name is its own directory.
 *
 * It is the same split as `folderRowsOf` of @ostore/s3/core (row {parent, name} is the directory
 * parent + name), which is what the gateway writes folder rows for.
 */
export function parentDirectories(key: string): string[] {
  const out: string[] = [];
  for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) out.push(key.slice(0, i + 1));
  return out;
}

/** The directory a folder row stands for: its partition's directory plus its name (`name` ends with '/'). */
export function directoryOfRow(parent: string, name: string): string {
  return parent + name;
}

const KIND_TAG: Record<DirectoryKind, string> = { object: 'o', version: 'v', upload: 'u' };

/**
 * The filter element of a non-empty directory of one folder index: kind, bucket id and directory,
 * separated by NUL (which no bucket id contains). One filter holds all three kinds, so that
 * `object_folders` is judged by `objects` only, `version_folders` by `versions` and
 * `upload_folders` by `uploads`.
 */
export function filterElement(kind: DirectoryKind, bucketId: string, directory: string): string {
  return `${KIND_TAG[kind]}\u0000${bucketId}\u0000${directory}`;
}
