import { commonPrefixOf, compareUtf8, folderRowsOf, splitKey } from '../keys';
import type { NameRange, TreeSource } from '../listing/tree-walker';

/**
 * An in-memory tree of directory partitions with the same query contract as the Cassandra
 * sources: for unit tests of listing logic (and a brute-force model to compare it with).
 * `rowsRead` counts rows returned by queries, to check that groups are skipped, not read.
 */
export class InMemoryTreeSource<R> implements TreeSource<R> {
  private readonly leavesByDir = new Map<string, { name: string; row: R }[]>();
  private readonly foldersByDir = new Map<string, string[]>();
  rowsRead = 0;
  queries = 0;

  constructor(
    rows: R[],
    private readonly keyOfRow: (row: R) => string,
    /** Order of the rows of one key (e.g. newest first). */
    private readonly compareRows: (a: R, b: R) => number = () => 0,
    extraFolders: string[] = [],
  ) {
    const folders = new Map<string, Set<string>>();
    const addFolders = (path: string) => {
      for (const f of folderRowsOf(path)) {
        if (!folders.has(f.parent)) folders.set(f.parent, new Set());
        folders.get(f.parent)!.add(f.name);
      }
    };
    for (const row of rows) {
      const key = keyOfRow(row);
      const { parent, name } = splitKey(key);
      if (!this.leavesByDir.has(parent)) this.leavesByDir.set(parent, []);
      this.leavesByDir.get(parent)!.push({ name, row });
      addFolders(key);
    }
    for (const f of extraFolders) addFolders(f.endsWith('/') ? f : `${f}/`);
    for (const list of this.leavesByDir.values())
      list.sort((a, b) => compareUtf8(a.name, b.name) || this.compareRows(a.row, b.row));
    for (const [dir, set] of folders) this.foldersByDir.set(dir, [...set].sort(compareUtf8));
  }

  nameOf(row: R): string {
    return splitKey(this.keyOfRow(row)).name;
  }

  async leaves(dir: string, range: NameRange, limit: number, after?: R): Promise<R[]> {
    this.queries++;
    const all = this.leavesByDir.get(dir) ?? [];
    let from = 0;
    if (after !== undefined) {
      const an = this.nameOf(after);
      from = all.findIndex((e) => {
        const c = compareUtf8(e.name, an);
        return c > 0 || (c === 0 && this.compareRows(e.row, after) > 0);
      });
      if (from < 0) from = all.length;
    }
    const out: R[] = [];
    for (let i = from; i < all.length && out.length < limit; i++) {
      if (inRange(all[i].name, range)) out.push(all[i].row);
      else if (range.lt !== undefined && compareUtf8(all[i].name, range.lt) >= 0) break;
    }
    this.rowsRead += out.length;
    return out;
  }

  async folders(dir: string, range: NameRange, limit: number): Promise<string[]> {
    this.queries++;
    const out = (this.foldersByDir.get(dir) ?? []).filter((n) => inRange(n, range)).slice(0, limit);
    this.rowsRead += out.length;
    return out;
  }
}

function inRange(name: string, r: NameRange): boolean {
  if (r.gt !== undefined && compareUtf8(name, r.gt) <= 0) return false;
  if (r.gte !== undefined && compareUtf8(name, r.gte) < 0) return false;
  if (r.lt !== undefined && compareUtf8(name, r.lt) >= 0) return false;
  return true;
}

/**
 * S3's ListObjects answer by brute force over the sorted keys: keys after `after` with the prefix,
 * grouped by the first delimiter after the prefix; a CommonPrefix is listed once, and only when it
 * sorts after `after` (a CommonPrefix given back as the marker is not repeated).
 */
export function modelList(keys: string[], o: { prefix?: string; delimiter?: string; after?: string }): string[] {
  const p = o.prefix ?? '';
  const out: string[] = [];
  const seen = new Set<string>();
  for (const k of [...new Set(keys)].sort(compareUtf8)) {
    if (!k.startsWith(p)) continue;
    if (o.after !== undefined && compareUtf8(k, o.after) <= 0) continue;
    const cp = commonPrefixOf(k, p, o.delimiter || undefined);
    if (cp === undefined) out.push(k);
    else if ((o.after === undefined || compareUtf8(cp, o.after) > 0) && !seen.has(cp)) {
      seen.add(cp);
      out.push(cp);
    }
  }
  return out;
}
