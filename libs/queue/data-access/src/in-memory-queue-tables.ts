import { PartitionLease, QueueRow, QueueTableStore } from './cassandra/cassandra-queue.repository';

interface Row {
  num: number;
  value: Buffer;
  expiresAt: number;
}

interface OffsetRow {
  offset?: number;
  owner?: string;
  ownerExpiresAt: number;
}

/**
 * The queue tables of migration 003-queue in memory, with their semantics: TTLs expire cells,
 * compare-and-set operations decide atomically, reads start at a num. Behind the Cassandra
 * queue's producer and consumer it gives a complete queue for unit tests (`inMemoryQueue`).
 */
export class InMemoryQueueTables implements QueueTableStore {
  private readonly topics = new Map<string, number>();
  private readonly nextNums = new Map<string, number>();
  private readonly rows = new Map<string, Row[]>();
  private readonly offsets = new Map<string, OffsetRow>();
  private readonly readers = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  async topicPartitions(topic: string, partitions: number): Promise<number> {
    if (!this.topics.has(topic)) this.topics.set(topic, partitions);
    return this.topics.get(topic)!;
  }

  async reserve(topic: string, part: number, n: number): Promise<{ first: number; next: number }> {
    const key = `${topic}/${part}`;
    const first = this.nextNums.get(key) ?? 0;
    this.nextNums.set(key, first + n);
    return { first, next: first + n };
  }

  async append(
    topic: string,
    part: number,
    first: number,
    values: readonly Buffer[],
    ttlSeconds: number,
  ): Promise<void> {
    const key = `${topic}/${part}`;
    const rows = this.rows.get(key) ?? [];
    const expiresAt = this.now() + ttlSeconds * 1000;
    values.forEach((value, i) => rows.push({ num: first + i, value: Buffer.from(value), expiresAt }));
    rows.sort((a, b) => a.num - b.num);
    this.rows.set(key, rows);
  }

  async read(topic: string, part: number, from: number, limit: number): Promise<QueueRow[]> {
    const now = this.now();
    return (this.rows.get(`${topic}/${part}`) ?? [])
      .filter((r) => r.num >= from && r.expiresAt > now)
      .slice(0, limit)
      .map((r) => ({ num: r.num, value: r.value }));
  }

  async heads(topic: string, parts: number[]): Promise<Map<number, number>> {
    const result = new Map<number, number>();
    for (const p of parts) {
      const next = this.nextNums.get(`${topic}/${p}`);
      if (next !== undefined) result.set(p, next);
    }
    return result;
  }

  async leases(topic: string, reader: string, partitions: number): Promise<PartitionLease[]> {
    return Array.from({ length: partitions }, (_, part) => {
      const row = this.offsetRow(topic, part, reader);
      return { part, owner: this.ownerOf(row), offset: row?.offset };
    });
  }

  async offset(topic: string, part: number, reader: string): Promise<number | undefined> {
    return this.offsetRow(topic, part, reader)?.offset;
  }

  async acquire(
    topic: string,
    part: number,
    reader: string,
    member: string,
    ttlSeconds: number,
  ): Promise<boolean> {
    const row = this.offsetRow(topic, part, reader, true)!;
    if (this.ownerOf(row) !== undefined) return false;
    row.owner = member;
    row.ownerExpiresAt = this.now() + ttlSeconds * 1000;
    return true;
  }

  async renew(
    topic: string,
    part: number,
    reader: string,
    member: string,
    ttlSeconds: number,
  ): Promise<boolean> {
    const row = this.offsetRow(topic, part, reader);
    if (!row || this.ownerOf(row) !== member) return false;
    row.ownerExpiresAt = this.now() + ttlSeconds * 1000;
    return true;
  }

  async release(topic: string, part: number, reader: string, member: string): Promise<boolean> {
    const row = this.offsetRow(topic, part, reader);
    if (!row || this.ownerOf(row) !== member) return false;
    row.owner = undefined;
    return true;
  }

  async commit(
    topic: string,
    part: number,
    reader: string,
    member: string,
    offset: number,
  ): Promise<boolean> {
    const row = this.offsetRow(topic, part, reader);
    if (!row || this.ownerOf(row) !== member) return false;
    row.offset = offset;
    return true;
  }

  async join(topic: string, reader: string, member: string, ttlSeconds: number): Promise<void> {
    const key = `${topic}/${reader}`;
    const members = this.readers.get(key) ?? new Map<string, number>();
    members.set(member, this.now() + ttlSeconds * 1000);
    this.readers.set(key, members);
  }

  leave(topic: string, reader: string, member: string): Promise<void> {
    return this.join(topic, reader, member, 1);
  }

  async members(topic: string, reader: string): Promise<string[]> {
    const now = this.now();
    return [...(this.readers.get(`${topic}/${reader}`) ?? new Map<string, number>()).entries()]
      .filter(([, expiresAt]) => expiresAt > now)
      .map(([member]) => member);
  }

  private offsetRow(topic: string, part: number, reader: string, create = false): OffsetRow | undefined {
    const key = `${topic}/${part}/${reader}`;
    let row = this.offsets.get(key);
    if (!row && create) {
      row = { ownerExpiresAt: 0 };
      this.offsets.set(key, row);
    }
    return row;
  }

  private ownerOf(row: OffsetRow | undefined): string | undefined {
    return row?.owner !== undefined && row.ownerExpiresAt > this.now() ? row.owner : undefined;
  }
}
