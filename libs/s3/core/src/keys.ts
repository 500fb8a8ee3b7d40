import { s3err } from './errors';

/** S3's key order is Cassandra's text order (the owner of the comparison). */
export { compareUtf8 } from '@ostore/shared/cassandra';

/**
 * Object keys as the metastore stores them: a parent directory and a name.
 *
 * The split is total and reversible: `parent` is the key up to and including its last '/', `name`
 * the rest, so key = parent + name for every string ("a" -> "" + "a"; "a/b/" -> "a/b/" + "";
 * "a//b" -> "a//" + "b"). Folder rows name each ancestor directory with its trailing '/'.
 */
export interface KeyPath {
  parent: string;
  name: string;
}

/**
 * S3's key rule, the one place it is checked (every operation on a key calls it before any
 * read): 1 to `maxBytes` bytes of UTF-8 (InvalidArgument when empty, else KeyTooLongError).
 */
export function validateKey(key: string, maxBytes: number): void {
  if (!key) throw s3err('InvalidArgument', 'The key must not be empty');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > maxBytes)
    throw s3err('KeyTooLongError', 'Your key is too long', { Size: String(bytes), MaxSizeAllowed: String(maxBytes) });
}

export function splitKey(key: string): KeyPath {
  const i = key.lastIndexOf('/');
  return { parent: key.slice(0, i + 1), name: key.slice(i + 1) };
}

export function joinKey(parent: string, name: string): string {
  return parent + name;
}

/** The directory part of any string (up to and including its last '/'). */
export function dirOf(s: string): string {
  return s.slice(0, s.lastIndexOf('/') + 1);
}

/**
 * The folder rows of every ancestor directory of a key: for "a/b/c.png",
 * {parent: "", name: "a/"} and {parent: "a/", name: "b/"}.
 */
export function folderRowsOf(key: string): KeyPath[] {
  const out: KeyPath[] = [];
  let start = 0;
  for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
    out.push({ parent: key.slice(0, start), name: key.slice(start, i + 1) });
    start = i + 1;
  }
  return out;
}

/**
 * The smallest string greater than every string that starts with `prefix` (its last code point
 * incremented), or undefined when there is none. `name >= successor(p)` skips a whole prefix group.
 */
export function prefixSuccessor(prefix: string): string | undefined {
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    const last = cps.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return cps.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** S3's CommonPrefix of `key` for `prefix` and `delimiter`, or undefined when the key has none. */
export function commonPrefixOf(key: string, prefix: string, delimiter: string | undefined): string | undefined {
  if (!delimiter) return undefined;
  const i = key.indexOf(delimiter, prefix.length);
  return i < 0 ? undefined : key.slice(0, i + delimiter.length);
}
