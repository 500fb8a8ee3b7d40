import { commonPrefixOf, compareUtf8, dirOf, prefixSuccessor } from '../keys';

/** A clustering range on names (structurally the NameRange of the data-access repositories). */
export interface NameRange {
  gt?: string;
  gte?: string;
  lt?: string;
}

/**
 * The rows of a tree of directory partitions: leaf rows (objects, versions or uploads, several
 * rows per name allowed) and folder rows (child directory names WITH their trailing '/').
 * Both come in Cassandra clustering order, i.e. UTF-8 byte order of the name.
 */
export interface TreeSource<R> {
  /**
   * Up to `limit` leaf rows of directory `dir` within `range`, in order; when `after` is given,
   * strictly after that row (the rest of its name first, then later names).
   */
  leaves(dir: string, range: NameRange, limit: number, after?: R): Promise<R[]>;
  /** Up to `limit` child folder names of `dir` within `range`, ascending. */
  folders(dir: string, range: NameRange, limit: number): Promise<string[]>;
  nameOf(row: R): string;
}

/** Decides which rows of ONE key are visible; called once per row, in order. */
export type RowFilter<R> = (row: R) => boolean;

export type WalkEvent<R> = { kind: 'row'; key: string; row: R } | { kind: 'prefix'; prefix: string };

export interface WalkOptions<R> {
  prefix?: string;
  /** '' or undefined: no grouping. */
  delimiter?: string;
  /** Exclusive start: keys <= after are skipped (with `resumeAfter`, only its earlier rows). */
  after?: string;
  /** Resume inside the key `after`: continue strictly after this row of it. */
  resumeAfter?: R;
  /** Rows fetched per query at first (doubles per page of one stream up to `maxPageSize`). */
  pageSize?: number;
  maxPageSize?: number;
  /**
   * Directory levels whose first query runs ahead while the walk climbs out of a deep start key
   * (default 16): a start key N levels deep costs about 2N / prefetchDepth round trips, not 2N.
   */
  prefetchDepth?: number;
  /**
   * A fresh filter for the rows of one key (`resumed` when the walk starts inside that key).
   * Default: every row is visible.
   */
  keyFilter?: (key: string, resumed: boolean) => RowFilter<R> | Promise<RowFilter<R>>;
}

/** One paged stream of a partition (leaf rows or folder names), re-positionable forward. */
class PagedStream<T> {
  private buf: T[] = [];
  private pos = 0;
  private exhausted = false;
  private cursor?: T;
  private pending?: Promise<T[]>;

  constructor(
    private range: NameRange,
    private limit: number,
    private readonly maxLimit: number,
    private readonly fetch: (range: NameRange, limit: number, after?: T) => Promise<T[]>,
    private readonly keyOf: (item: T) => string,
    resumeAfter?: T,
  ) {
    this.cursor = resumeAfter;
  }

  /** Starts the next query now (if one is due) so that a later peek() finds it under way. */
  prefetch(): void {
    if (this.pending || this.exhausted || this.pos < this.buf.length) return;
    this.pending = this.fetch(this.range, this.limit, this.cursor);
    this.pending.catch(() => undefined); // a prefetch dropped by seek() must not reject unhandled
  }

  async peek(): Promise<T | undefined> {
    while (this.pos >= this.buf.length) {
      if (this.exhausted) return undefined;
      const query = this.pending ?? this.fetch(this.range, this.limit, this.cursor);
      this.pending = undefined;
      const rows = await query;
      if (rows.length < this.limit) this.exhausted = true;
      this.buf = rows;
      this.pos = 0;
      if (rows.length > 0) this.cursor = rows[rows.length - 1];
      this.limit = Math.min(this.limit * 2, this.maxLimit);
    }
    return this.buf[this.pos];
  }

  advance(): void {
    this.pos++;
  }

  /** Skips forward to the first item whose key is >= `from` (undefined: skip everything). */
  seek(from: string | undefined): void {
    if (from === undefined) {
      this.buf = [];
      this.pos = 0;
      this.exhausted = true;
      this.pending = undefined;
      return;
    }
    while (this.pos < this.buf.length && compareUtf8(this.keyOf(this.buf[this.pos]), from) < 0) this.pos++;
    if (this.pos < this.buf.length || this.exhausted) return;
    // nothing buffered beyond the target: query again from it, keeping the upper bound
    this.range = { gte: from, lt: this.range.lt };
    this.cursor = undefined;
    this.pending = undefined;
  }
}

interface Frame<R> {
  dir: string;
  leaves: PagedStream<R>;
  folders: PagedStream<string>;
}

/**
 * Walks the keys of a tree of directory partitions in S3 order (UTF-8 binary order of the WHOLE
 * key), with S3's prefix / delimiter / start-after semantics.
 *
 * In a directory, leaf names and folder names (with their '/') merge by plain string order, which
 * places each subtree exactly where its prefix sorts ("a-b" < "a/" < "a0"); a folder is descended
 * only when its keys are needed. Grouping by the delimiter: a key (or a folder whose path already
 * contains the delimiter after the prefix) yields the CommonPrefix; the rest of the group is then
 * skipped by re-querying each affected partition from the prefix's successor, never by reading
 * through it. A CommonPrefix is reported only when its group holds a visible key (empty folders,
 * left behind by deletes, are never reported) and only when it sorts after `after`, so that a
 * CommonPrefix returned as a continuation marker is not returned again.
 *
 * A start key (`after`) is entered along its path. With a delimiter the walk starts right after
 * the start key's own CommonPrefix, so its depth costs nothing (a 1,000-level marker took two
 * queries per level, 1.3 s); without one every level of the path may hold later keys and is read,
 * the first queries of `prefetchDepth` levels in flight at once.
 */
export class TreeWalker<R> {
  private readonly stack: Frame<R>[] = [];
  private readonly prefix: string;
  private readonly delimiter?: string;
  private readonly after?: string;
  private readonly pageSize: number;
  private readonly maxPageSize: number;
  private currentKey?: string;
  private currentFilter: RowFilter<R> = () => true;
  private started = false;

  constructor(
    private readonly source: TreeSource<R>,
    private readonly options: WalkOptions<R> = {},
  ) {
    this.prefix = options.prefix ?? '';
    this.delimiter = options.delimiter || undefined;
    this.after = options.after;
    this.maxPageSize = options.maxPageSize ?? 1000;
    this.pageSize = Math.min(options.pageSize ?? 100, this.maxPageSize);
  }

  /** The next row or CommonPrefix, or undefined at the end. */
  async next(): Promise<WalkEvent<R> | undefined> {
    if (!this.started) this.start();
    while (this.stack.length > 0) {
      const frame = this.stack[this.stack.length - 1];
      frame.leaves.prefetch(); // both streams' queries at once
      frame.folders.prefetch();
      const leaf = await frame.leaves.peek();
      const folder = await frame.folders.peek();
      if (leaf === undefined && folder === undefined) {
        this.stack.pop();
        this.prefetchAncestors();
        continue;
      }
      const takeFolder =
        folder !== undefined && (leaf === undefined || compareUtf8(folder, this.source.nameOf(leaf)) < 0);
      if (takeFolder) {
        frame.folders.advance();
        const path = frame.dir + folder!;
        const cp = commonPrefixOf(path, this.prefix, this.delimiter);
        if (cp === undefined) {
          this.stack.push(this.frame(path, {}, false));
          continue;
        }
        if (this.isAtOrBeforeStart(cp)) {
          this.seekPast(cp);
          continue;
        }
        if (await this.hasAny(path)) {
          this.seekPast(cp);
          return { kind: 'prefix', prefix: cp };
        }
        continue;
      }
      const row = leaf!;
      const key = frame.dir + this.source.nameOf(row);
      const cp = commonPrefixOf(key, this.prefix, this.delimiter);
      if (cp !== undefined && this.isAtOrBeforeStart(cp)) {
        this.seekPast(cp);
        continue;
      }
      frame.leaves.advance();
      if (key !== this.currentKey) {
        this.currentKey = key;
        const resumed = this.options.resumeAfter !== undefined && key === this.after;
        this.currentFilter = this.options.keyFilter ? await this.options.keyFilter(key, resumed) : () => true;
      }
      if (!this.currentFilter(row)) continue;
      if (cp !== undefined) {
        this.seekPast(cp);
        return { kind: 'prefix', prefix: cp };
      }
      return { kind: 'row', key, row };
    }
    return undefined;
  }

  private isAtOrBeforeStart(cp: string): boolean {
    return this.after !== undefined && compareUtf8(cp, this.after) <= 0;
  }

  private start(): void {
    this.started = true;
    const p = this.prefix;
    const pd = dirOf(p);
    const pr = p.slice(pd.length);
    const upper = pr ? prefixSuccessor(pr) : undefined;
    const a = this.after;
    if (a === undefined || compareUtf8(a, p) < 0) {
      this.stack.push(this.frame(pd, { gte: pr, lt: upper }, false));
      return;
    }
    if (!a.startsWith(p)) return; // every key with the prefix sorts before `after`
    // With a delimiter, every key of the group of `after` (its CommonPrefix) is at or before the
    // start, so the walk starts after the whole group: the descent stops at the group's level
    // (for '/', the prefix's own directory) however deep `after` is.
    const group = commonPrefixOf(a, p, this.delimiter);
    this.descend(pd, upper, group ?? a, group !== undefined);
    this.prefetchAncestors();
  }

  /**
   * Pushes one frame per directory along `target`, each continuing after the segment leading
   * deeper; the last continues after `target` itself (`skipGroup`: after every name starting with it).
   */
  private descend(pd: string, upper: string | undefined, target: string, skipGroup: boolean): void {
    let dir = pd;
    for (;;) {
      const lt = dir === pd ? upper : undefined;
      const rest = target.slice(dir.length);
      const slash = rest.indexOf('/');
      if (skipGroup && (slash < 0 || slash === rest.length - 1)) {
        const from = prefixSuccessor(rest);
        if (from !== undefined) this.stack.push(this.frame(dir, { gte: from, lt }, false));
        return;
      }
      if (slash < 0) {
        this.stack.push(this.frame(dir, { gt: rest, lt }, true));
        return;
      }
      const seg = rest.slice(0, slash + 1);
      this.stack.push(this.frame(dir, { gt: seg, lt }, false));
      dir += seg;
    }
  }

  /** Starts the first queries of the innermost frames, so that climbing out of a deep start is pipelined. */
  private prefetchAncestors(): void {
    const depth = this.options.prefetchDepth ?? 16;
    for (let i = this.stack.length - 1; i >= 0 && i >= this.stack.length - depth; i--) {
      this.stack[i].leaves.prefetch();
      this.stack[i].folders.prefetch();
    }
  }

  private frame(dir: string, range: NameRange, resumeHere: boolean): Frame<R> {
    const resumeAfter = resumeHere ? this.options.resumeAfter : undefined;
    // Resuming inside the key `after` starts the leaf stream at that row, not after the name.
    const leafRange = resumeAfter ? { lt: range.lt } : range;
    return {
      dir,
      leaves: new PagedStream<R>(
        leafRange,
        this.pageSize,
        this.maxPageSize,
        (r, limit, after) => this.source.leaves(dir, r, limit, after),
        (row) => this.source.nameOf(row),
        resumeAfter,
      ),
      folders: new PagedStream<string>(
        range,
        this.pageSize,
        this.maxPageSize,
        (r, limit, after) => this.source.folders(dir, after === undefined ? r : { gt: after, lt: r.lt }, limit),
        (name) => name,
      ),
    };
  }

  /** Pops the frames inside the group `cp` and moves the enclosing one past it. */
  private seekPast(cp: string): void {
    while (this.stack.length > 0 && this.stack[this.stack.length - 1].dir.startsWith(cp)) this.stack.pop();
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return;
    const next = prefixSuccessor(cp.slice(frame.dir.length));
    frame.leaves.seek(next);
    frame.folders.seek(next);
  }

  /** Whether any visible row exists below `dir` (depth first, stops at the first one). */
  private async hasAny(dir: string): Promise<boolean> {
    const leaves = new PagedStream<R>({}, 10, this.maxPageSize, (r, limit, after) =>
      this.source.leaves(dir, r, limit, after),
    (row) => this.source.nameOf(row));
    let key: string | undefined;
    let filter: RowFilter<R> = () => true;
    for (let row = await leaves.peek(); row !== undefined; leaves.advance(), row = await leaves.peek()) {
      if (!this.options.keyFilter) return true;
      const k = dir + this.source.nameOf(row);
      if (k !== key) {
        key = k;
        filter = await this.options.keyFilter(k, false);
      }
      if (filter(row)) return true;
    }
    const folders = new PagedStream<string>({}, 10, this.maxPageSize, (r, limit, after) =>
      this.source.folders(dir, after === undefined ? r : { gt: after }, limit),
    (n) => n);
    for (let f = await folders.peek(); f !== undefined; folders.advance(), f = await folders.peek()) {
      if (await this.hasAny(dir + f)) return true;
    }
    return false;
  }
}

/**
 * Takes up to `maxKeys` events (rows and CommonPrefixes count alike, as in S3); truncated when
 * another event exists. `maxKeys` 0 returns nothing and is not truncated (as S3 answers).
 */
export async function takePage<R>(
  walker: TreeWalker<R>,
  maxKeys: number,
): Promise<{ events: WalkEvent<R>[]; isTruncated: boolean }> {
  const events: WalkEvent<R>[] = [];
  if (maxKeys <= 0) return { events, isTruncated: false };
  while (events.length < maxKeys) {
    const e = await walker.next();
    if (!e) return { events, isTruncated: false };
    events.push(e);
  }
  return { events, isTruncated: (await walker.next()) !== undefined };
}
