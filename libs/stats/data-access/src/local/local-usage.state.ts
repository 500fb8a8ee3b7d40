import { mkdir, readdir, rm, stat } from 'fs/promises';
import { join } from 'path';
import { ClassicLevel } from 'classic-level';
import { DedupFilters } from './dedup-filter';
import {
  eventsEnd,
  eventsStart,
  indexEnd,
  indexKey,
  LocalWindow,
  parseIndexKey,
  parsePendingKey,
  partitionKey,
  PartitionMark,
  pendingKey,
  PREFIX_END,
  windowKey,
} from './local-usage.entity';

/** A window a batch wrote, with the value it read before (none: new or rebuilt). */
export interface WindowWrite {
  window: LocalWindow;
  /** The value the batch read before building on it; the commit refuses when it changed meanwhile. */
  previous?: LocalWindow;
  /** Rebuilt from Cassandra: its old dedup entries are replaced by `ids`, whatever they were. */
  rebuilt: boolean;
  /** Event ids whose dedup entries the window gets (a rebuilt window: all of its entries). */
  ids: readonly string[];
}

/** One batch's change of the local state, written atomically (one LevelDB write batch). */
export interface LocalCommit {
  windows: WindowWrite[];
  marks: [number, PartitionMark][];
}

/** Event ids of one window, asked about its dedup entries. */
export interface WindowIds {
  bucketId: string;
  start: number;
  ids: readonly string[];
}

/** Most windows kept in memory beside the store (`windows`): a few hundred bytes each; past it the memory starts afresh. */
export const CACHED_WINDOWS = 100_000;

/**
 * Default size of LevelDB's write buffer (its memtable; up to twice this in memory while one is written out). LevelDB's
 * own 4 MiB makes a table file per ~40,000 dedup entries, and merging those files down the levels grew to a quarter of
 * the write path's CPU once the store held a million entries (tools/bench/stats/RECORD-RESULTS.md, 2026-12-05 14:30).
 */
export const LOCAL_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;

/** Default budget of the in-memory dedup filters (dedup-filter.ts): ~22 million ids. */
export const DEDUP_FILTER_BYTES = 32 * 1024 * 1024;

/** Bytes of the directory's files the filter keeps; a file LevelDB deletes meanwhile counts 0. */
async function filesSize(dir: string, keep: (name: string) => boolean): Promise<number> {
  let bytes = 0;
  for (const f of await readdir(dir))
    if (keep(f)) bytes += (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size;
  return bytes;
}

/** Removes the previous info log, which LevelDB keeps as `LOG.old` when it opens. */
async function rmLog(dir: string): Promise<void> {
  await rm(join(dir, 'LOG.old'), { force: true });
}

/** A window read, then changed by someone else (a cleanup) before the batch committed: the batch is retried. */
export class LocalStateConflictError extends Error {
  constructor(key: string) {
    super(`local window ${key} changed while a batch built on it; the batch is redelivered`);
    this.name = LocalStateConflictError.name;
  }
}

/**
 * The stats app's local state (seed 001) in an embedded LSM store (LevelDB via classic-level):
 * open 5-minute windows with their absolute sums, the event-id dedup entries of each window, the
 * timestamp index, and each partition's continuity mark (layout: local-usage.entity.ts).
 *
 * Writes of a batch and each bounded step of a cleanup run one at a time (an async lock), so a
 * cleanup never deletes entries a batch is adding; a step holds the lock for at most one bounded
 * delete batch, which bounds how long it can hold up consumption.
 */
export class LocalUsageState {
  private lock: Promise<unknown> = Promise.resolve();
  /** Set while the store is closed and opened again (see `rotateLogs`): reads wait for it. */
  private reopening?: Promise<void>;
  private reads = 0;
  private readsDrained?: () => void;
  private windowCount = 0;
  private eventCount = 0;
  private storeLookups = 0;

  private readonly filters: DedupFilters;
  /**
   * The stored value of windows read or written lately, exactly as LevelDB holds it (every write of
   * a window goes through `commit` or `evict`, which keep it), so that a batch's two reads of its
   * windows (the build's, and the commit's conflict check) usually skip LevelDB and the JSON parse.
   */
  private readonly cached = new Map<string, LocalWindow>();
  /** Bumped after every write of windows: a read that a write overtook does not fill `cached`. */
  private windowWrites = 0;
  private windowReads = 0;

  private constructor(
    private readonly db: ClassicLevel<string, string>,
    readonly dir: string,
    filterBytes: number,
  ) {
    this.filters = new DedupFilters(filterBytes);
  }

  /**
   * Opens (creating) the store in `dir` and counts its entries. `writeBufferSize`: bytes LevelDB
   * keeps in its log and memtable before writing a table file (LOCAL_WRITE_BUFFER_BYTES unless set).
   * `dedupFilterBytes`: memory for the in-memory filters in front of the dedup entries (0: none,
   * every lookup goes to LevelDB).
   */
  static async open(
    dir: string,
    options: { writeBufferSize?: number; dedupFilterBytes?: number } = {},
  ): Promise<LocalUsageState> {
    await mkdir(dir, { recursive: true });
    const { dedupFilterBytes = DEDUP_FILTER_BYTES, writeBufferSize = LOCAL_WRITE_BUFFER_BYTES } = options;
    const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8', writeBufferSize });
    await db.open();
    const sut = new LocalUsageState(db, dir, dedupFilterBytes);
    for await (const key of db.keys({ gte: 't|', lt: `t|${PREFIX_END}` })) {
      const { bucketId, start } = parseIndexKey(key);
      // read past the memory of windows: counting them all must not fill it
      const v = await db.get(windowKey(bucketId, start));
      sut.windowCount++;
      sut.eventCount += v === undefined ? 0 : (JSON.parse(v) as LocalWindow).events;
    }
    return sut;
  }

  /** Entries now: windows (sums) and their dedup entries. */
  get entries(): { windows: number; events: number } {
    return { windows: this.windowCount, events: this.eventCount };
  }

  /** The in-memory dedup filters now (windows covered, bytes held), and the dedup keys `seen` read from LevelDB so far. */
  get filtered(): { windows: number; bytes: number; lookups: number } {
    return { windows: this.filters.size, bytes: this.filters.bytes, lookups: this.storeLookups };
  }

  close(): Promise<void> {
    this.cached.clear();
    this.windowWrites++;
    return this.db.close();
  }

  /** The windows' stored values, in order (undefined: none). The values are shared: callers must not change them. */
  async windows(keys: readonly { bucketId: string; start: number }[]): Promise<(LocalWindow | undefined)[]> {
    const out: (LocalWindow | undefined)[] = new Array(keys.length);
    const missing: string[] = [];
    const at: number[] = [];
    keys.forEach((k, i) => {
      const key = windowKey(k.bucketId, k.start);
      const w = this.cached.get(key);
      if (w) out[i] = w;
      else {
        missing.push(key);
        at.push(i);
      }
    });
    if (missing.length === 0) return out;
    const writes = this.windowWrites;
    this.windowReads += missing.length;
    const values = await this.read(() => this.db.getMany(missing));
    const fill = writes === this.windowWrites && this.cached.size + missing.length <= CACHED_WINDOWS;
    values.forEach((v, j) => {
      const w = v === undefined ? undefined : (JSON.parse(v) as LocalWindow);
      out[at[j]] = w;
      if (w && fill) this.cached.set(missing[j], w);
    });
    return out;
  }

  /** Windows read from LevelDB so far (the rest were answered from memory). */
  get windowLookups(): number {
    return this.windowReads;
  }

  private async window(bucketId: string, start: number): Promise<LocalWindow | undefined> {
    return (await this.windows([{ bucketId, start }]))[0];
  }

  /**
   * For each id of each window, in order, whether its dedup entry is stored. An id the window's
   * in-memory filter has never held is not stored (see dedup-filter.ts); the rest are read from
   * LevelDB in one `getMany`.
   */
  async seen(windows: readonly WindowIds[]): Promise<boolean[]> {
    let total = 0;
    for (const w of windows) total += w.ids.length;
    const seen = new Array<boolean>(total).fill(false);
    const keys: string[] = [];
    const at: number[] = [];
    let n = 0;
    for (const { bucketId, start, ids } of windows) {
      const filter = this.filters.of(windowKey(bucketId, start));
      const prefix = eventsStart(bucketId, start);
      for (const id of ids) {
        if (!filter || filter.mayHold(id)) {
          at.push(n);
          keys.push(prefix + id);
        }
        n++;
      }
    }
    if (keys.length === 0) return seen;
    this.storeLookups += keys.length;
    const values = await this.read(() => this.db.getMany(keys));
    for (let i = 0; i < values.length; i++) seen[at[i]] = values[i] !== undefined;
    return seen;
  }

  /** A partition's continuity mark. */
  async mark(partition: number): Promise<PartitionMark | undefined> {
    const v = await this.read(() => this.db.get(partitionKey(partition)));
    return v === undefined ? undefined : (JSON.parse(v) as PartitionMark);
  }

  /** Writes one batch's change atomically; refuses (LocalStateConflictError) when a window it built on changed. */
  commit(c: LocalCommit): Promise<void> {
    return this.exclusive(async () => {
      const stored = await this.windows(c.windows.map((w) => w.window));
      c.windows.forEach((w, i) => {
        const now = stored[i];
        if (!w.rebuilt && (now?.touchedAt !== w.previous?.touchedAt || now?.lease !== w.previous?.lease))
          throw new LocalStateConflictError(windowKey(w.window.bucketId, w.window.start));
      });
      for (const w of c.windows)
        if (w.rebuilt) await this.db.clear({ gte: eventsStart(w.window.bucketId, w.window.start), lt: eventsEnd(w.window.bucketId, w.window.start) });
      const keys = c.windows.map((w) => windowKey(w.window.bucketId, w.window.start));
      // the filters take the new entries before they are written: until then they only over-answer, which is safe
      c.windows.forEach((w, i) => {
        if (w.rebuilt) this.filters.reset(keys[i], w.ids);
        else this.filters.add(keys[i], w.ids);
      });
      // a chained batch: one N-API call per entry with the key and value as arguments, which costs ~60 % of the
      // array form's per-entry work (classic-level reads each op's type, key and value as properties, after
      // abstract-level has cloned the op); one LevelDB write for the whole commit either way
      let batch: ReturnType<typeof this.db.batch> | undefined;
      try {
        batch = this.db.batch();
        for (let i = 0; i < c.windows.length; i++) {
          const { window: w, ids } = c.windows[i];
          const old = stored[i];
          if (old) batch.del(indexKey(old.touchedAt, w.bucketId, w.start));
          batch.put(keys[i], JSON.stringify(w));
          batch.put(indexKey(w.touchedAt, w.bucketId, w.start), '');
          const prefix = eventsStart(w.bucketId, w.start);
          for (const id of ids) batch.put(prefix + id, '');
        }
        for (const [p, m] of c.marks) batch.put(partitionKey(p), JSON.stringify(m));
        await batch.write();
        c.windows.forEach((w, i) => {
          if (!stored[i]) this.windowCount++;
          this.eventCount += w.window.events - (stored[i]?.events ?? 0);
        });
      } catch (e) {
        // frees a batch that never reached its write (after a write, closing is a no-op)
        await batch?.close().catch(() => undefined);
        // what LevelDB holds now is not known for sure: the memory starts afresh
        this.cached.clear();
        throw e;
      } finally {
        // whatever the outcome, a read that started before now must not fill the memory
        this.windowWrites++;
      }
      if (this.cached.size + c.windows.length > CACHED_WINDOWS) this.cached.clear();
      c.windows.forEach((w, i) => this.cached.set(keys[i], w.window));
    });
  }

  /** Index keys of windows last written before `cutoffMs`, oldest first, at most `limit`. */
  async expired(cutoffMs: number, limit: number): Promise<string[]> {
    return this.read(() => this.db.keys({ gte: 't|', lt: indexEnd(cutoffMs), limit }).all());
  }

  /** When the least recently written window was written (ms), if any. */
  async oldestTouchedAt(): Promise<number | undefined> {
    const [first] = await this.read(() => this.db.keys({ gte: 't|', lt: `t|${PREFIX_END}`, limit: 1 }).all());
    return first === undefined ? undefined : parseIndexKey(first).touchedAt;
  }

  /**
   * First step of a window's cascade deletion: removes its sums and index entry and records it as
   * pending, in one write. An index entry that no longer matches its window is only removed.
   */
  evict(index: string): Promise<void> {
    return this.exclusive(async () => {
      const { touchedAt, bucketId, start } = parseIndexKey(index);
      const w = await this.window(bucketId, start);
      const key = windowKey(bucketId, start);
      const evicted = w !== undefined && w.touchedAt === touchedAt;
      if (evicted) this.filters.drop(key);
      const batch = this.db.batch().del(index);
      if (evicted) {
        batch.del(key).put(pendingKey(bucketId, start), '');
        this.windowCount--;
        this.eventCount -= w.events;
      }
      try {
        await batch.write();
      } finally {
        // on a failure too: the next read asks LevelDB
        if (evicted) {
          this.cached.delete(key);
          this.windowWrites++;
        }
      }
    });
  }

  /** Windows whose dedup entries are still being deleted, at most `limit`. */
  async pending(limit: number): Promise<string[]> {
    return this.read(() => this.db.keys({ gte: 'x|', lt: `x|${PREFIX_END}`, limit }).all());
  }

  /**
   * Deletes at most `limit` dedup entries of a pending window; returns how many, 0 when none was
   * left (then the pending mark is removed too). A window written again meanwhile (rebuilt by a
   * batch) owns its entries again: the mark is dropped and nothing is deleted.
   */
  deleteEvents(pending: string, limit: number): Promise<number> {
    return this.exclusive(async () => {
      const { bucketId, start } = parsePendingKey(pending);
      if (await this.window(bucketId, start)) {
        await this.db.del(pending);
        return 0;
      }
      const keys = await this.db
        .keys({ gte: eventsStart(bucketId, start), lt: eventsEnd(bucketId, start), limit })
        .all();
      if (keys.length === 0) {
        await this.db.del(pending);
        return 0;
      }
      const batch = this.db.batch();
      for (const key of keys) batch.del(key);
      await batch.write();
      return keys.length;
    });
  }

  /** LevelDB's compaction over every key, so that the space of deleted entries is freed. */
  compact(): Promise<void> {
    return this.db.compactRange('\u0000', PREFIX_END);
  }

  /** Bytes of the store's files on disk. */
  async sizeOnDisk(): Promise<number> {
    return filesSize(this.dir, () => true);
  }

  /**
   * LevelDB appends to its info log (`LOG`) and its `MANIFEST` for as long as it stays open, a
   * line per compaction, and starts both afresh only when opened. Past `maxBytes` together, the
   * store is closed and opened again (batches wait for it, reads too); returns whether it was.
   */
  async rotateLogs(maxBytes: number): Promise<boolean> {
    const bytes = await filesSize(this.dir, (f) => f === 'LOG' || f === 'LOG.old' || f.startsWith('MANIFEST-'));
    if (bytes <= maxBytes) return false;
    await this.exclusive(async () => {
      let reopened!: () => void;
      this.reopening = new Promise<void>((resolve) => (reopened = resolve));
      try {
        if (this.reads > 0) await new Promise<void>((resolve) => (this.readsDrained = resolve));
        await this.db.close();
        await this.db.open();
        await rmLog(this.dir);
      } finally {
        this.reopening = undefined;
        reopened();
      }
    });
    return true;
  }

  private async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.reopening) await this.reopening;
    this.reads++;
    try {
      return await fn();
    } finally {
      if (--this.reads === 0 && this.readsDrained) {
        this.readsDrained();
        this.readsDrained = undefined;
      }
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }
}
