import { commonPrefixOf, compareUtf8, dirOf, prefixSuccessor } from '../keys';
import { NameRange, PagedStream } from './paged-stream';

export type { NameRange } from './paged-stream';

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
   * `after` names a directory (ending in '/') whose keys are all done: the walk starts after every
   * key that begins with it (resuming from `TreeWalker.cut`).
   */
  afterGroup?: boolean;
  /**
   * Directory levels of the start key's path that one walk reads (default 32). A start key deeper
   * than that is entered at the deepest level of its path that exists (a binary search over the
   * path's folder rows: about log2(depth) point reads), and at most this many levels up from there
   * are read: when they are exhausted the walk stops and `cut` says where to resume. So a
   * start key's depth costs at most 2 x levelBudget + log2(depth) queries, whatever it is.
   * Infinity: read every level (the walk never stops early).
   */
  levelBudget?: number;
  /**
   * Whether the caller resumes from `cut` (a continuation token): then the walk may stop at the
   * level budget before it has produced any event. Otherwise (marker listings: the client goes on
   * from the last key it got) it stops there only once it has produced one, and reads further
   * levels until it does (their number is bounded by the keys that exist, not by the start key).
   */
  resumableCut?: boolean;
  /**
   * A fresh filter for the rows of one key (`resumed` when the walk starts inside that key).
   * Default: every row is visible.
   */
  keyFilter?: (key: string, resumed: boolean) => RowFilter<R> | Promise<RowFilter<R>>;
}

interface Frame<R> {
  dir: string;
  leaves: PagedStream<R>;
  folders: PagedStream<string>;
}

/** One level of the start key's path: a directory and the range of it that follows the path. */
interface Level {
  dir: string;
  range: NameRange;
  resumeHere: boolean;
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
 * queries per level, 1.3 s); without one every level of the path may hold later keys. Those
 * levels are read deepest first (the order of their keys), the first queries of `prefetchDepth`
 * levels in flight at once, and at most `levelBudget` of them per walk: levels below the deepest
 * existing directory of the path hold nothing and are skipped (a key's folder rows exist whenever
 * the key does: PUT writes them first, the cleanup removes only a folder row whose directory has
 * no key and no folder row), and past the budget the walk ends early with `cut`, where the next
 * walk resumes (see `resumableCut` for listings without a continuation token).
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
  private readonly levelBudget: number;
  /** Levels of the start path not yet pushed (outermost first), and the outermost one pushed. */
  private levels: Level[] = [];
  private outermost?: string;
  private emitted = 0;
  private cutAt?: string;

  constructor(
    private readonly source: TreeSource<R>,
    private readonly options: WalkOptions<R> = {},
  ) {
    this.prefix = options.prefix ?? '';
    this.delimiter = options.delimiter || undefined;
    this.after = options.after;
    this.maxPageSize = options.maxPageSize ?? 1000;
    this.pageSize = Math.min(options.pageSize ?? 100, this.maxPageSize);
    this.levelBudget = Math.max(1, options.levelBudget ?? 32);
  }

  /**
   * Set when the walk ended at the level budget rather than at the end of the listing: the
   * directory (ending in '/') whose keys after the start have all been walked. The listing goes on
   * with `after` = cut and `afterGroup`.
   */
  get cut(): string | undefined {
    return this.cutAt;
  }

  /** The next row or CommonPrefix, or undefined at the end (or at the level budget: see `cut`). */
  async next(): Promise<WalkEvent<R> | undefined> {
    if (!this.started) await this.start();
    const e = await this.step();
    if (e) this.emitted++;
    return e;
  }

  private async step(): Promise<WalkEvent<R> | undefined> {
    for (;;) {
      if (this.stack.length === 0 && !this.climb()) return undefined;
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
  }

  /**
   * Pushes the next levels of the start path once the pushed ones are exhausted, within the level
   * budget (past it: only while nothing was produced and the caller cannot resume from a cut).
   */
  private climb(): boolean {
    if (this.levels.length === 0) return false;
    if (this.options.resumableCut || this.emitted > 0) {
      this.cutAt = this.outermost;
      this.levels = [];
      return false;
    }
    this.pushLevels();
    return true;
  }

  private pushLevels(): void {
    const batch = this.levels.splice(Math.max(0, this.levels.length - this.levelBudget));
    for (const l of batch) this.stack.push(this.frame(l.dir, l.range, l.resumeHere));
    this.outermost = batch[0]?.dir;
    this.prefetchAncestors();
  }

  private isAtOrBeforeStart(cp: string): boolean {
    return this.after !== undefined && compareUtf8(cp, this.after) <= 0;
  }

  private async start(): Promise<void> {
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
    const group = commonPrefixOf(a, p, this.delimiter) ?? (this.options.afterGroup ? a : undefined);
    const levels = this.descend(pd, upper, group ?? a, group !== undefined);
    this.levels = levels.length > this.levelBudget ? levels.slice(0, (await this.deepestExisting(levels)) + 1) : levels;
    this.pushLevels();
  }

  /**
   * The deepest level of the start path whose directory exists: level i > 0 exists when its
   * folder row is in level i - 1. Binary search, since a directory's ancestors exist whenever it
   * holds a key. A folder row left without its parent's (brought back by a repair after the
   * cleanup) can only make the answer deeper than needed, never skip a level that holds a key.
   */
  private async deepestExisting(levels: Level[]): Promise<number> {
    let lo = 0; // exists
    let hi = levels.length; // past the path
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      const parent = levels[mid - 1].dir;
      const seg = levels[mid].dir.slice(parent.length);
      const [found] = await this.source.folders(parent, { gte: seg }, 1);
      if (found === seg) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /**
   * One level per directory along `target`, each continuing after the segment leading deeper;
   * the last continues after `target` itself (`skipGroup`: after every name starting with it).
   */
  private descend(pd: string, upper: string | undefined, target: string, skipGroup: boolean): Level[] {
    const out: Level[] = [];
    let dir = pd;
    for (;;) {
      const lt = dir === pd ? upper : undefined;
      const rest = target.slice(dir.length);
      const slash = rest.indexOf('/');
      if (skipGroup && (slash < 0 || slash === rest.length - 1)) {
        const from = prefixSuccessor(rest);
        if (from !== undefined) out.push({ dir, range: { gte: from, lt }, resumeHere: false });
        return out;
      }
      if (slash < 0) {
        out.push({ dir, range: { gt: rest, lt }, resumeHere: true });
        return out;
      }
      const seg = rest.slice(0, slash + 1);
      out.push({ dir, range: { gt: seg, lt }, resumeHere: false });
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
 * another event exists or the walk stopped at its level budget (`walker.cut`: fewer events than
 * `maxKeys`, as S3 allows). `maxKeys` 0 returns nothing and is not truncated (as S3 answers).
 */
export async function takePage<R>(
  walker: TreeWalker<R>,
  maxKeys: number,
): Promise<{ events: WalkEvent<R>[]; isTruncated: boolean }> {
  const events: WalkEvent<R>[] = [];
  if (maxKeys <= 0) return { events, isTruncated: false };
  while (events.length < maxKeys) {
    const e = await walker.next();
    if (!e) return { events, isTruncated: walker.cut !== undefined };
    events.push(e);
  }
  return { events, isTruncated: (await walker.next()) !== undefined || walker.cut !== undefined };
}
