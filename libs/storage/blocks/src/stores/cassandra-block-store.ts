import type { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { assertBlockId } from '../block-id';
import type { BlockStore } from '../block-store';
import { chunkSpan } from '../range';
import { BlockCorruptError, BlockNotFoundError } from '../errors';

export interface CassandraBlockStoreOptions {
  /** Tier name recorded in every BlockRef written here. */
  tier: string;
  /**
   * Bytes per chunk row (default 512 KiB). Cassandra is comfortable with blobs up to about 1 MiB;
   * the size is recorded per block, so changing it later only affects new blocks.
   */
  chunkSize?: number;
  /** Chunk inserts in flight per block write (default 4). */
  writeConcurrency?: number;
  /** Table of the chunks (default `block_chunks`, migration 002). */
  table?: string;
}

export const DEFAULT_CHUNK_SIZE = 512 * 1024;

const num = (v: unknown): number =>
  v === null || v === undefined ? NaN : typeof v === 'number' ? v : (v as types.Long).toNumber();

/**
 * Blocks as chunk rows in Cassandra, `block_chunks ((block_id), chunk_index) data blob`, so that
 * gateways need no shared disk. The block's `size` and `chunk_size` are static columns written
 * after every chunk: a block "exists" only once they are there, so a crash mid-write leaves no
 * block that reads as complete (the orphan chunks are removed by the block GC through `delete`).
 *
 * A range read asks only for the chunks that hold the range (one clustering slice, paged); a whole
 * read pages through the partition a few chunks at a time. Delete is one partition tombstone.
 */
export class CassandraBlockStore implements BlockStore {
  readonly tier: string;
  readonly chunkSize: number;
  private readonly writeConcurrency: number;
  private readonly table: string;

  constructor(
    private readonly cassandra: CassandraClient,
    options: CassandraBlockStoreOptions,
  ) {
    this.tier = options.tier;
    this.chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(this.chunkSize) || this.chunkSize < 1024 || this.chunkSize > 4 * 1024 * 1024) {
      throw new RangeError(`chunkSize must be between 1 KiB and 4 MiB (got ${this.chunkSize})`);
    }
    this.writeConcurrency = Math.max(1, options.writeConcurrency ?? 4);
    this.table = options.table ?? 'block_chunks';
    if (!/^[a-z][a-z0-9_]*$/.test(this.table)) throw new Error(`invalid table name ${this.table}`);
  }

  /** The store reads whole chunks anyway: let `openRead` ask for one chunk at a time. */
  get preferredReadSize(): number {
    return this.chunkSize;
  }

  async write(blockId: string, data: Buffer): Promise<void> {
    assertBlockId(blockId);
    const count = Math.ceil(data.length / this.chunkSize);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) {
        await this.cassandra.execute(
          `INSERT INTO ${this.table} (block_id, chunk_index, data) VALUES (?, ?, ?)`,
          [blockId, i, data.subarray(i * this.chunkSize, Math.min((i + 1) * this.chunkSize, data.length))],
          { isIdempotent: true },
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.writeConcurrency, count) }, worker));
    // The completion marker, last: readers trust a block only when it is present.
    await this.cassandra.execute(
      `INSERT INTO ${this.table} (block_id, size, chunk_size) VALUES (?, ?, ?)`,
      [blockId, data.length, this.chunkSize],
      { isIdempotent: true },
    );
  }

  async read(blockId: string, start = 0, endExclusive?: number): Promise<Buffer> {
    assertBlockId(blockId);
    // Guess the chunk size from the configuration; the static columns returned with the rows say
    // whether the block was written with another one, and then the slice is asked for again.
    const first = await this.fetch(blockId, start, endExclusive, this.chunkSize);
    if (first.data) return first.data;
    const second = await this.fetch(blockId, start, endExclusive, first.chunkSize);
    if (second.data) return second.data;
    throw new BlockCorruptError(blockId, 'chunk size changed while reading');
  }

  async delete(blockId: string): Promise<void> {
    assertBlockId(blockId);
    await this.cassandra.execute(`DELETE FROM ${this.table} WHERE block_id = ?`, [blockId], {
      isIdempotent: true,
    });
  }

  async exists(blockId: string): Promise<boolean> {
    assertBlockId(blockId);
    const rs = await this.cassandra.execute(
      `SELECT size FROM ${this.table} WHERE block_id = ? LIMIT 1`,
      [blockId],
      { isIdempotent: true },
    );
    return rs.rowLength > 0 && rs.first()['size'] !== null;
  }

  /** Any chunk or the completion marker: a write that died midway leaves chunks without the marker. */
  async holdsAnyBytes(blockId: string): Promise<boolean> {
    assertBlockId(blockId);
    const rs = await this.cassandra.execute(
      `SELECT block_id FROM ${this.table} WHERE block_id = ? LIMIT 1`,
      [blockId],
      {
        isIdempotent: true,
      },
    );
    return rs.rowLength > 0;
  }

  /**
   * Reads bytes [start, endExclusive) assuming chunks of `chunkSize`. When the block records another
   * chunk size and the guess selected the wrong chunks, returns that size instead of data.
   */
  private async fetch(
    blockId: string,
    start: number,
    endExclusive: number | undefined,
    chunkSize: number,
  ): Promise<{ data?: Buffer; chunkSize: number }> {
    const whole = start <= 0 && endExclusive === undefined;
    const span = whole ? undefined : chunkSpan(Math.max(start, 0), endExclusive ?? 2 ** 52, chunkSize);
    if (!whole && !span) {
      if (!(await this.exists(blockId))) throw new BlockNotFoundError(blockId, this.tier);
      return { data: Buffer.alloc(0), chunkSize };
    }
    const cql = span
      ? `SELECT chunk_index, data, size, chunk_size FROM ${this.table} WHERE block_id = ? AND chunk_index >= ? AND chunk_index <= ?`
      : `SELECT chunk_index, data, size, chunk_size FROM ${this.table} WHERE block_id = ?`;
    const params = span ? [blockId, span.first, Math.min(span.last, 2 ** 31 - 1)] : [blockId];
    // A few chunks per page: bounded memory per request whatever the block size.
    const fetchSize = Math.max(1, Math.floor((4 * 1024 * 1024) / chunkSize));
    const rows: { index: number; data: Buffer }[] = [];
    let size = NaN;
    let recorded = NaN;
    for await (const row of this.cassandra.rows(cql, params, { fetchSize, isIdempotent: true })) {
      size = num(row['size']);
      recorded = num(row['chunk_size']);
      if (span && recorded !== chunkSize) return { chunkSize: recorded };
      if (row['chunk_index'] !== null)
        rows.push({ index: row['chunk_index'] as number, data: row['data'] as Buffer });
    }
    if (Number.isNaN(size) && span) {
      // An empty slice says nothing about the statics: a range past the end, or a missing block.
      const probe = (
        await this.cassandra.execute(
          `SELECT size, chunk_size FROM ${this.table} WHERE block_id = ? LIMIT 1`,
          [blockId],
          {
            isIdempotent: true,
          },
        )
      ).first();
      size = num(probe?.['size']);
      recorded = num(probe?.['chunk_size']);
      if (!Number.isNaN(size) && recorded !== chunkSize) return { chunkSize: recorded };
    }
    // No completion marker: never written, deleted, or a write that died before its last step.
    if (Number.isNaN(size) || Number.isNaN(recorded)) throw new BlockNotFoundError(blockId, this.tier);

    const from = Math.min(Math.max(start, 0), size);
    const to = Math.min(endExclusive ?? size, size);
    if (to <= from) return { data: Buffer.alloc(0), chunkSize: recorded };
    const out = Buffer.allocUnsafe(to - from);
    let expected = Math.floor(from / recorded);
    for (const { index, data } of rows) {
      const chunkStart = index * recorded;
      if (chunkStart + data.length <= from) continue;
      if (chunkStart >= to) break;
      if (index !== expected) throw new BlockCorruptError(blockId, `chunk ${expected} missing`);
      if (data.length !== Math.min(recorded, size - chunkStart)) {
        throw new BlockCorruptError(blockId, `chunk ${index} has ${data.length} bytes`);
      }
      expected++;
      const a = Math.max(from, chunkStart);
      const b = Math.min(to, chunkStart + data.length);
      data.copy(out, a - from, a - chunkStart, b - chunkStart);
    }
    if (expected * recorded < to) throw new BlockCorruptError(blockId, `chunk ${expected} missing`);
    return { data: out, chunkSize: recorded };
  }
}
