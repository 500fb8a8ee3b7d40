import { Client, types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { BucketCatalog } from './bucket-catalog';
import { GroupBuilder, KeyGrouper } from './key-grouper';
import { ScanTask } from './local-scanner';
import { KeyedRow, PageSource, RowPage } from './page-source';
import { ScanSnapshots } from './scan-snapshots';
import { ScanStats } from './scan-state';
import { ScanMetrics } from './scan.metrics';
import { TokenSpan } from './token-ring';

/**
 * A row of `block_refs` (migration 002, owned by @ostore/storage/blocks' BlockStateRepository):
 * one per reference, the block's status statics on each. The scan keys it like the tables
 * partitioned by (bucket_id, parent): `parent` is the block id and `name` is always '', so that
 * the key grouper makes ONE group of a whole block partition and a saved position always falls
 * between two blocks.
 */
export interface ScannedBlockRefRow extends KeyedRow {
  readonly blockId: string;
  /** The reference (`v:<vid>`, `p:<uploadId>:<part>:<pid>`); null on the one row of a block without any. */
  readonly ref: string | null;
  readonly size: number;
  /** The status is trusted (`is_alive`) and `committed`. */
  readonly committed: boolean;
}

/** One block with every reference its partition holds. */
export interface ScannedBlock {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
  readonly blockId: string;
  readonly size: number;
  readonly committed: boolean;
  /** All references counted. */
  readonly refCount: number;
  /** The first REFS_RESOLVED of them (the ones traced to a bucket). */
  readonly refs: readonly string[];
}

/** Most references of one block traced to their buckets (one metastore read each); the rest count in the total only. */
export const REFS_RESOLVED = 1000;

/** A block needs this many references to be ranked: a block with one reference shares nothing. */
export const MIN_SHARED_REFS = 2;

const num = (v: unknown): number =>
  v === null || v === undefined ? 0 : typeof v === 'number' ? v : (v as types.Long).toNumber();

/**
 * The scan's reads of `block_refs`, through the session pinned to the local node at ONE (as
 * CassandraPageSource does for the tables partitioned by directory): token ranges of
 * `token(block_id)`, paged by the driver.
 *
 * `partition(key, afterName)` continues a block after the position, and a position only ever
 * follows a whole block (group), so there is nothing after it: it reads nothing. The reader also
 * asks it for the rest of a partition whose range read gave up on tombstones: such a block (more
 * than 100,000 released references not yet compacted away) is then counted with the references
 * read before the failure, and the pass goes on with the next block.
 */
export class BlockRefsPageSource implements PageSource<ScannedBlockRefRow> {
  private readonly rangeCql =
    'SELECT token(block_id) AS t, block_id, ref, size, status, is_alive FROM block_refs WHERE token(block_id) > ? AND token(block_id) <= ?';

  constructor(
    private readonly client: Client,
    private readonly consistency = types.consistencies.one,
  ) {}

  async range(span: TokenSpan, fetchSize: number, pageState?: string): Promise<RowPage<ScannedBlockRefRow>> {
    const rs = await this.client.execute(this.rangeCql, [long(span.start), long(span.end)], {
      prepare: true,
      fetchSize,
      pageState,
      consistency: this.consistency,
      isIdempotent: true,
    });
    return { rows: rs.rows.map(decodeBlockRef), pageState: rs.pageState ?? undefined };
  }

  async partition(): Promise<RowPage<ScannedBlockRefRow>> {
    return { rows: [] };
  }
}

function decodeBlockRef(r: types.Row): ScannedBlockRefRow {
  const blockId = r['block_id'] as string;
  return {
    token: BigInt((r['t'] as types.Long).toString()),
    bucketId: '',
    parent: blockId,
    name: '',
    blockId,
    ref: (r['ref'] as string | null) ?? null,
    size: num(r['size']),
    committed: r['is_alive'] === true && r['status'] === 'committed',
  };
}

function long(token: bigint): types.Long {
  return types.Long.fromString(token.toString());
}

class BlockGroupBuilder implements GroupBuilder<ScannedBlockRefRow, ScannedBlock> {
  readonly capped = false;
  private refCount = 0;
  private readonly refs: string[] = [];

  constructor(private readonly first: ScannedBlockRefRow) {}

  add(row: ScannedBlockRefRow): void {
    if (row.ref === null) return;
    this.refCount++;
    if (this.refs.length < REFS_RESOLVED) this.refs.push(row.ref);
  }

  build(): ScannedBlock {
    const f = this.first;
    return {
      token: f.token,
      bucketId: '',
      parent: f.blockId,
      name: '',
      blockId: f.blockId,
      size: f.size,
      committed: f.committed,
      refCount: this.refCount,
      refs: this.refs,
    };
  }
}

/** Which bucket a block reference belongs to. */
export interface RefBucketSource {
  /** The bucket id of each reference that can be traced (the others are absent from the map). */
  bucketsOf(refs: readonly string[]): Promise<Map<string, string>>;
}

/**
 * Traces references to buckets through the metastore: `v:<vid>` by the version's `version_meta`
 * row (which records where the version lives). A part reference (`p:<uploadId>:...`) of an
 * upload in progress cannot be traced (neither `upload_parts` nor any index names the bucket of
 * an upload id): it counts in its block's total only; once the upload completes, the version's
 * own `v:` references replace it.
 */
export class MetastoreRefBucketSource implements RefBucketSource {
  constructor(
    private readonly db: CassandraClient,
    private readonly concurrency = 16,
  ) {}

  async bucketsOf(refs: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const vids = refs.filter((r) => r.startsWith('v:'));
    for (let i = 0; i < vids.length; i += this.concurrency)
      await Promise.all(
        vids.slice(i, i + this.concurrency).map(async (ref) => {
          const rs = await this.db.execute(
            'SELECT bucket_id FROM version_meta WHERE vid = ?',
            [ref.slice(2)],
            { isIdempotent: true },
          );
          const b = rs.first()?.['bucket_id'];
          if (b !== null && b !== undefined) out.set(ref, String(b));
        }),
      );
    return out;
  }
}

/**
 * The scan of `block_refs` (seed 000: "blocks with the most references" in the snapshot): counts
 * every committed block of this node's primary ranges with ALL its references (a block's
 * references are one partition, so one host sees them all), and offers each block with at least
 * MIN_SHARED_REFS references to the top list of every bucket its references trace to. Publishes
 * no candidates. Its counters live in the pass's snapshot, saved with the position after whole
 * blocks only, so a resumed pass counts every block once.
 */
export class BlockRefsScanTask implements ScanTask<ScannedBlockRefRow, ScannedBlock> {
  readonly handler = 'block_refs' as const;
  /** Nothing is published; the scanner still needs a queue to pick its partition. */
  readonly queue = 'versions' as const;

  constructor(
    readonly source: PageSource<ScannedBlockRefRow>,
    private readonly buckets: BucketCatalog,
    private readonly owners: RefBucketSource,
    private readonly counting: ScanSnapshots,
    private readonly metrics: ScanMetrics,
  ) {}

  newGrouper(): KeyGrouper<ScannedBlockRefRow, ScannedBlock> {
    return new KeyGrouper((first) => new BlockGroupBuilder(first));
  }

  begin(): Promise<void> {
    return this.buckets.load();
  }

  started(stats: ScanStats, passTs: Date, resumed: boolean): void {
    this.counting.started(stats, passTs, resumed, true);
  }

  async process(block: ScannedBlock, _now: Date, stats: ScanStats): Promise<string[]> {
    const counter = this.counting.counter(stats);
    if (!counter || !block.committed || block.refCount === 0) return [];
    const perBucket: Record<string, number> = {};
    const names: Record<string, string> = {};
    if (block.refCount >= MIN_SHARED_REFS) {
      for (const bucketId of (await this.owners.bucketsOf(block.refs)).values())
        perBucket[bucketId] = (perBucket[bucketId] ?? 0) + 1;
      for (const bucketId of Object.keys(perBucket)) {
        const name = (this.buckets.peek(bucketId) ?? (await this.buckets.get(bucketId)))?.name;
        if (name !== undefined) names[bucketId] = name;
      }
    }
    counter.addBlock({
      blockId: block.blockId,
      size: block.size,
      refs: block.refCount,
      buckets: perBucket,
      names,
    });
    return [];
  }

  async completed(stats: ScanStats, passTs: Date): Promise<void> {
    this.metrics.blockMaxReferences.set(stats.usage?.blocks?.maxRefs ?? 0);
    await this.counting.completed(this.handler, stats, passTs);
  }
}
