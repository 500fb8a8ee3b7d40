import type { RowReadOptions, VersionRow } from './version.entity';
import type { VersionsRepository } from './versions.repository';

/** How NewestReadGroups groups (S3CoreSettings.newestReadGroups). */
export interface NewestReadGroupSettings {
  /** Most keys in one grouped read; 1 or less: every read alone (no grouping). */
  maxKeys: number;
  /**
   * How long a read of a busy directory may wait for more keys (ms; 0: never waits). A directory
   * is busy when its previous read was asked for at most this long before.
   */
  lingerMs: number;
  /**
   * Reads of one directory in flight at once: further keys of the directory wait, grouped, until
   * one of them is answered (or until maxKeys keys wait).
   */
  maxInFlight: number;
  /**
   * Rows a grouped read may return per key (its LIMIT is this times its keys). A key of an
   * unversioned bucket has one row, two while writers race or until the scan removes a replaced
   * null version; a key left without its answer by the cut is read alone.
   */
  rowsPerKey: number;
}

export const defaultNewestReadGroupSettings: NewestReadGroupSettings = { maxKeys: 32, lingerMs: 1, maxInFlight: 2, rowsPerKey: 4 };

/** What NewestReadGroups reports (Prometheus metrics in the S3 core). */
export interface NewestReadGroupsSink {
  /** One Cassandra read sent for `keys` distinct keys of one directory (1: a read alone). */
  read(keys: number): void;
  /** A key read alone after its grouped read was cut by its LIMIT before reaching it. */
  fallback(): void;
}

type Waiter = { resolve(row: VersionRow | undefined): void; reject(e: unknown): void };

interface Group {
  id: string;
  bucketId: string;
  parent: string;
  options: RowReadOptions;
  /** Waiters by key name, in the order the names were asked for. */
  names: Map<string, Waiter[]>;
  /** Waiting for more keys until this timer fires (a busy directory). */
  linger?: NodeJS.Timeout;
}

type Reads = Pick<VersionsRepository, 'newest' | 'newestOfNames'>;

/** Directories whose last read time is remembered (the busy-directory test); oldest forgotten first. */
const REMEMBERED_DIRECTORIES = 4096;

/**
 * Reads of a key's newest version row (GET and HEAD of unversioned buckets), grouped per directory
 * partition: keys of one directory with the same columns that wait together go to Cassandra as one
 * `name IN` read of that partition.
 *
 * Cassandra's work for a point read is mostly fixed per request (statement, coordinator, response,
 * transport: bench analysis 2026-12-06-s35-cassandra-profile); a read of 4 keys costs it about
 * half as much per key as 4 reads (2026-12-07-s44 analysis). Keys wait only in a busy directory:
 * - a quiet directory's read is sent in the loop turn it was asked for (after that turn's I/O
 *   callbacks, at its check phase), with the keys asked for in that turn; alone it is the plain
 *   `LIMIT 1` read;
 * - a directory whose previous read was asked for at most `lingerMs` before (a GET rate of 1,000/s
 *   or more at 1 ms) holds its new group that long;
 * - while a directory has `maxInFlight` reads in flight, its new keys wait for an answer (a group
 *   commit);
 * - a group of `maxKeys` keys is sent at once.
 *
 * Consistency is a single read's: a grouped read is sent after every read it answers was asked
 * for, so it sees every write acknowledged before any of them. An error of the grouped read is
 * each of its readers' error.
 */
export class NewestReadGroups {
  private readonly open = new Map<string, Group>();
  /** Reads in flight per group id (directory and columns); absent: none. */
  private readonly inFlight = new Map<string, number>();
  /** When each directory's last read was asked for (monotonic ms), oldest first. */
  private readonly lastAsked = new Map<string, number>();
  private scheduled = false;

  /**
   * @param ms where the reads go (its `versions`, looked up at each read)
   * @param nowMs monotonic milliseconds (the injected clock's `monotonicMs`)
   */
  constructor(
    private readonly ms: { readonly versions: Reads },
    private readonly nowMs: () => number,
    private readonly settings: NewestReadGroupSettings = defaultNewestReadGroupSettings,
    private readonly sink?: NewestReadGroupsSink,
  ) {}

  /** The newest row of `parent` + `name` (markers and ghosts included), as VersionsRepository.newest. */
  newest(bucketId: string, parent: string, name: string, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    if (this.settings.maxKeys <= 1) return this.alone(bucketId, parent, name, options);
    const id = `${options.body ? 'b' : '-'}\u0000${bucketId}\u0000${parent}`;
    const busy = this.busy(id);
    let group = this.open.get(id);
    if (!group) {
      group = { id, bucketId, parent, options: { body: options.body }, names: new Map() };
      this.open.set(id, group);
      if (busy) group.linger = setTimeout(this.lingered, this.settings.lingerMs, group);
      else this.schedule();
    }
    const waiters = group.names.get(name) ?? [];
    group.names.set(name, waiters);
    const answer = new Promise<VersionRow | undefined>((resolve, reject) => waiters.push({ resolve, reject }));
    if (group.names.size >= this.settings.maxKeys) void this.send(group);
    return answer;
  }

  /** Whether the directory's previous read was asked for within lingerMs (and remembers this one). */
  private busy(id: string): boolean {
    if (this.settings.lingerMs <= 0) return false;
    const now = this.nowMs();
    const previous = this.lastAsked.get(id);
    this.lastAsked.delete(id);
    this.lastAsked.set(id, now);
    if (this.lastAsked.size > REMEMBERED_DIRECTORIES) this.lastAsked.delete(this.lastAsked.keys().next().value!);
    return previous !== undefined && now - previous <= this.settings.lingerMs;
  }

  private readonly lingered = (group: Group): void => {
    group.linger = undefined;
    if (this.open.get(group.id) === group) this.sendUnlessBusy(group);
  };

  private sendUnlessBusy(group: Group): void {
    // while the directory has its reads in flight, the group waits for an answer (see send)
    if ((this.inFlight.get(group.id) ?? 0) < Math.max(1, this.settings.maxInFlight)) void this.send(group);
  }

  private async alone(bucketId: string, parent: string, name: string, options: RowReadOptions): Promise<VersionRow | undefined> {
    this.sink?.read(1);
    return (await this.ms.versions.newest(bucketId, parent, name, 1, options))[0];
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const group of [...this.open.values()]) if (!group.linger) this.sendUnlessBusy(group);
    });
  }

  private async send(group: Group): Promise<void> {
    this.open.delete(group.id);
    clearTimeout(group.linger);
    this.inFlight.set(group.id, (this.inFlight.get(group.id) ?? 0) + 1);
    try {
      await this.read(group);
    } finally {
      const left = this.inFlight.get(group.id)! - 1;
      if (left > 0) this.inFlight.set(group.id, left);
      else this.inFlight.delete(group.id);
      // the keys that waited for this answer go now (with those asked for in this turn)
      const waiting = this.open.get(group.id);
      if (waiting && !waiting.linger) this.schedule();
    }
  }

  private async read(group: Group): Promise<void> {
    const { bucketId, parent, options, names } = group;
    if (names.size === 1) {
      const [[name, waiters]] = names;
      await settle(waiters, () => this.alone(bucketId, parent, name, options));
      return;
    }
    const limit = names.size * this.settings.rowsPerKey;
    let read: Awaited<ReturnType<Reads['newestOfNames']>>;
    try {
      this.sink?.read(names.size);
      read = await this.ms.versions.newestOfNames(bucketId, parent, [...names.keys()], options, limit);
    } catch (e) {
      for (const waiters of names.values()) for (const w of waiters) w.reject(e);
      return;
    }
    const cutOff: [string, Waiter[]][] = [];
    for (const [name, waiters] of names) {
      const row = read.newest.get(name);
      if (!row && read.cut) cutOff.push([name, waiters]);
      else answer(waiters, row);
    }
    await Promise.all(
      cutOff.map(([name, waiters]) => {
        this.sink?.fallback();
        return settle(waiters, () => this.alone(bucketId, parent, name, options));
      }),
    );
  }
}

/** Each waiter of one key gets its own copy of the row (the same key may be asked for twice). */
function answer(waiters: Waiter[], row: VersionRow | undefined): void {
  waiters.forEach((w, i) => w.resolve(row && i > 0 ? { ...row } : row));
}

async function settle(waiters: Waiter[], read: () => Promise<VersionRow | undefined>): Promise<void> {
  try {
    answer(waiters, await read());
  } catch (e) {
    for (const w of waiters) w.reject(e);
  }
}
