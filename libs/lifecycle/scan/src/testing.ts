import type { QueueName } from '@ostore/queue/contracts';
import { QueueProducer } from '@ostore/queue/data-access';
import { BucketRecord, BucketSource } from './bucket-catalog';
import { KeyedRow, PageSource, RowPage } from './page-source';
import { ScanHandler, ScanSnapshot, ScanStateStore } from './scan-state';
import { TokenSpan } from './token-ring';
import { VersionTagSource } from './version-tags';

/**
 * A table in memory with the Cassandra queries' semantics: rows sorted by token, then by the
 * given clustering order; page states are offsets. Counts queries and rows returned, and can
 * fail the next `failNext` reads.
 */
export class InMemoryPageSource<T extends KeyedRow> implements PageSource<T> {
  private readonly rows: T[];
  queries = 0;
  rowsReturned = 0;
  failNext = 0;

  constructor(rows: readonly T[], clustering: (a: T, b: T) => number) {
    this.rows = [...rows].sort(
      (a, b) =>
        (a.token < b.token ? -1 : a.token > b.token ? 1 : 0) ||
        cmp(a.bucketId, b.bucketId) ||
        cmp(a.parent, b.parent) ||
        cmp(a.name, b.name) ||
        clustering(a, b),
    );
  }

  async range(span: TokenSpan, fetchSize: number, pageState?: string): Promise<RowPage<T>> {
    return this.page((r) => r.token > span.start && r.token <= span.end, fetchSize, pageState);
  }

  async partition(
    key: { bucketId: string; parent: string },
    afterName: string,
    fetchSize: number,
    pageState?: string,
  ): Promise<RowPage<T>> {
    return this.page(
      (r) => r.bucketId === key.bucketId && r.parent === key.parent && r.name > afterName,
      fetchSize,
      pageState,
    );
  }

  private page(match: (r: T) => boolean, fetchSize: number, pageState?: string): RowPage<T> {
    this.queries++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('injected read failure');
    }
    const all = this.rows.filter(match);
    const from = pageState ? Number(pageState) : 0;
    const rows = all.slice(from, from + fetchSize);
    this.rowsReturned += rows.length;
    const next = from + fetchSize;
    return { rows, pageState: next < all.length ? String(next) : undefined };
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** scan_state in memory; keeps every save for inspection. */
export class InMemoryScanStateStore extends ScanStateStore {
  readonly saves: ScanSnapshot[] = [];
  private readonly rows = new Map<string, ScanSnapshot[]>();

  async latest(source: string, ks: string, handler: ScanHandler): Promise<ScanSnapshot | undefined> {
    const rows = this.rows.get(`${source}/${ks}/${handler}`) ?? [];
    return rows.reduce<ScanSnapshot | undefined>((a, b) => (!a || b.ts >= a.ts ? b : a), undefined);
  }

  async save(snapshot: ScanSnapshot): Promise<void> {
    const copy: ScanSnapshot = { ...snapshot, stat: structuredClone(snapshot.stat) };
    this.saves.push(copy);
    const key = `${snapshot.source}/${snapshot.ks}/${snapshot.handler}`;
    const rows = (this.rows.get(key) ?? []).filter((r) => r.ts.getTime() !== snapshot.ts.getTime());
    this.rows.set(key, [...rows, copy]);
  }
}

export class InMemoryBucketSource extends BucketSource {
  loads = 0;
  constructor(public records: BucketRecord[] = []) {
    super();
  }
  async all(): Promise<BucketRecord[]> {
    this.loads++;
    return [...this.records];
  }
}

export class InMemoryTagSource extends VersionTagSource {
  readonly asked: string[] = [];
  constructor(readonly tags = new Map<string, Record<string, string>>()) {
    super();
  }
  async tagsOf(vids: readonly string[]): Promise<Map<string, Record<string, string>>> {
    this.asked.push(...vids);
    return new Map(vids.map((v) => [v, this.tags.get(v) ?? {}]));
  }
}

/** A QueueProducer that records what is published, per queue and partition. */
export class RecordingProducer extends QueueProducer {
  readonly published: { queue: QueueName; partition: number; messages: string[] }[] = [];
  failNext = 0;

  constructor(readonly partitions = 3) {
    super();
  }

  async publish(queue: QueueName, partition: number, messages: readonly (Buffer | string)[]): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('injected publish failure');
    }
    if (partition < 0 || partition >= this.partitions) throw new Error(`no partition ${partition}`);
    this.published.push({ queue, partition, messages: messages.map(String) });
  }

  async partitionCount(): Promise<number> {
    return this.partitions;
  }

  async close(): Promise<void> {
    return undefined;
  }

  messages(queue: QueueName): string[] {
    return this.published.filter((p) => p.queue === queue).flatMap((p) => p.messages);
  }
}
