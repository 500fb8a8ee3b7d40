import { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { CleanupPassRow, CleanupPassStat, FilterGenerationRow, HostFilterRow } from './folder-filter.entity';
import { forEachLimited, num } from './statement';

const SCOPE = 'cluster';

/**
 * The Bloom filters of the empty-directory cleanup and their generations (migration 007). Every
 * write is a whole-row INSERT (rows expire whole with the tables' TTL); a generation is opened by
 * a compare-and-set so that all scanners agree on its shape.
 */
export class FolderFilterRepository {
  constructor(private readonly client: CassandraClient) {}

  /** The newest generation, if any. */
  async latestGeneration(): Promise<FilterGenerationRow | undefined> {
    const rs = await this.client.execute(
      'SELECT generation, bits, hashes, salt, capacity, fpr, created_at FROM folder_filter_generations WHERE scope = ? LIMIT 1',
      [SCOPE],
    );
    const r = rs.first();
    return r ? generationOf(r) : undefined;
  }

  /** The newest `limit` generations, newest first (the admin view). */
  async recentGenerations(limit: number): Promise<FilterGenerationRow[]> {
    const rs = await this.client.execute(
      `SELECT generation, bits, hashes, salt, capacity, fpr, created_at FROM folder_filter_generations WHERE scope = ? LIMIT ${Math.max(1, Math.floor(limit))}`,
      [SCOPE],
    );
    return rs.rows.map(generationOf);
  }

  /** Opens a generation (LWT): true when this call created it, false when it already existed. */
  async openGeneration(g: FilterGenerationRow): Promise<boolean> {
    const rs = await this.client.execute(
      `INSERT INTO folder_filter_generations (scope, generation, bits, hashes, salt, capacity, fpr, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
      [SCOPE, g.generation, types.Long.fromNumber(g.shape.bits), g.shape.hashes, g.shape.salt ?? null, types.Long.fromNumber(g.capacity), g.fpr, g.createdAt],
    );
    return rs.first()?.['[applied]'] === true;
  }

  /** The host rows of a generation. */
  async hosts(generation: number): Promise<HostFilterRow[]> {
    const rs = await this.client.execute(
      'SELECT generation, source, complete, chunks, keys, set_bits, started_at, completed_at FROM folder_filter_hosts WHERE generation = ?',
      [generation],
    );
    return rs.rows.map((r) => ({
      generation: r['generation'] as number,
      source: String(r['source']),
      complete: r['complete'] === true,
      chunks: (r['chunks'] as number | null) ?? 0,
      keys: num(r['keys']),
      setBits: num(r['set_bits']),
      startedAt: r['started_at'] as Date,
      completedAt: (r['completed_at'] as Date | null) ?? undefined,
    }));
  }

  /** Records a host's build (the whole row). */
  async saveHost(h: HostFilterRow): Promise<void> {
    await this.client.execute(
      `INSERT INTO folder_filter_hosts (generation, source, complete, chunks, keys, set_bits, started_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [h.generation, h.source, h.complete, h.chunks, types.Long.fromNumber(h.keys), types.Long.fromNumber(h.setBits), h.startedAt, h.completedAt ?? null],
    );
  }

  /** Writes a host's filter chunks (each its own partition), `concurrency` at a time. */
  async writeChunks(generation: number, source: string, chunks: readonly Uint8Array[], concurrency = 4): Promise<void> {
    const seqs = chunks.map((_, i) => i);
    await forEachLimited(seqs, concurrency, (seq) =>
      this.client.execute('INSERT INTO folder_filter_chunks (generation, source, seq, data) VALUES (?, ?, ?, ?)', [
        generation,
        source,
        seq,
        Buffer.from(chunks[seq].buffer, chunks[seq].byteOffset, chunks[seq].byteLength),
      ]),
    );
  }

  /** Reads a host's `count` chunks in order; throws when one is missing (expired or never written). */
  async readChunks(generation: number, source: string, count: number, concurrency = 4): Promise<Buffer[]> {
    const out: Buffer[] = new Array(count);
    await forEachLimited(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      async (seq) => {
        const rs = await this.client.execute('SELECT data FROM folder_filter_chunks WHERE generation = ? AND source = ? AND seq = ?', [
          generation,
          source,
          seq,
        ]);
        const data = rs.first()?.['data'] as Buffer | undefined;
        if (!data) throw new Error(`chunk ${seq} of the folder filter of ${source}, generation ${generation}, is missing`);
        out[seq] = data;
      },
    );
    return out;
  }

  /** Records what a scanner's folder scan did with a generation. */
  async savePass(p: CleanupPassRow): Promise<void> {
    await this.client.execute('INSERT INTO folder_cleanup_passes (generation, source, stat, finished_at) VALUES (?, ?, ?, ?)', [
      p.generation,
      p.source,
      JSON.stringify(p.stat),
      p.finishedAt,
    ]);
  }

  /** The folder-scan results of a generation, one per scanner. */
  async passes(generation: number): Promise<CleanupPassRow[]> {
    const rs = await this.client.execute('SELECT generation, source, stat, finished_at FROM folder_cleanup_passes WHERE generation = ?', [
      generation,
    ]);
    return rs.rows.map((r) => ({
      generation: r['generation'] as number,
      source: String(r['source']),
      stat: JSON.parse(String(r['stat'])) as CleanupPassStat,
      finishedAt: r['finished_at'] as Date,
    }));
  }
}

function generationOf(r: types.Row): FilterGenerationRow {
  return {
    generation: r['generation'] as number,
    shape: shapeOf(num(r['bits']), r['hashes'] as number, r['salt'] as number | null),
    capacity: num(r['capacity']),
    fpr: r['fpr'] as number,
    createdAt: r['created_at'] as Date,
  };
}

/** A generation's shape as stored; a row opened before salts existed (null salt) stays unsalted. */
function shapeOf(bits: number, hashes: number, salt: number | null): FilterGenerationRow['shape'] {
  return salt === null || salt === undefined ? { bits, hashes } : { bits, hashes, salt };
}
