import { KeyedRow, SCAN_START, ScanLog, TokenRangeReader, TokenSpan } from '@ostore/lifecycle/scan';
import { DirectoryFilter, FilterGeneration } from '@ostore/folders/cleanup';
import { FolderFilterRepository, HostFilterRow } from '@ostore/metastore/data-access';
import { TokenBucket } from '@ostore/queue/data-access';
import { Clock, sleep } from '@ostore/shared/clock';
import { KindSource } from './key-tables';
import { ScannerFolderMetrics } from './folder-cleanup.metrics';

/** How a filter build reads and stores (the scanner's SCAN_* and FOLDER_FILTER_* settings). */
export interface FilterBuildSettings {
  /** Rows per page. */
  readonly fetchSize: number;
  /** Bytes per stored chunk (a multiple of 4). */
  readonly chunkBytes: number;
  /** Rows per second at most (0: unlimited). */
  readonly rowsPerSecond: number;
}

/**
 * Builds this host's Bloom filter of non-empty directories for a generation: reads the keys of
 * `objects`, `versions` and `uploads` in the node's primary token ranges (the local scan's reader,
 * page by page, at ONE through the pinned session) and adds every parent directory of every key,
 * tagged with its kind; then stores the filter in chunks and marks the host's build complete.
 *
 * Rows come partition by partition and a key's directories depend on its partition (its parent)
 * only, so each partition's directories are added once. A partition the reader leaves out because
 * of tombstones still has its own directory added (its key is known): a left-out part can only
 * make a directory look empty, which the scheduler's re-check then refuses; nothing is ever
 * deleted on the filter's word alone. A stopped build stores nothing (the next tick starts over).
 */
export class FilterBuildJob {
  private readonly limiter?: TokenBucket;

  constructor(
    private readonly leaves: readonly KindSource[],
    private readonly repo: FolderFilterRepository,
    private readonly settings: FilterBuildSettings,
    private readonly clock: Clock,
    private readonly metrics: ScannerFolderMetrics,
    private readonly log: ScanLog,
  ) {
    if (settings.rowsPerSecond > 0) this.limiter = new TokenBucket(settings.rowsPerSecond, undefined, () => clock.monotonicMs());
  }

  /** Builds and stores the filter; undefined when stopped. */
  async build(generation: FilterGeneration, source: string, spans: readonly TokenSpan[], signal: AbortSignal): Promise<HostFilterRow | undefined> {
    const startedAt = this.clock.now();
    const base = { generation: generation.generation, source, startedAt };
    await this.repo.saveHost({ ...base, complete: false, chunks: 0, keys: 0, setBits: 0 });
    const filter = DirectoryFilter.create(generation.shape);
    const began = performance.now();
    let keys = 0;
    for (const { kind, source: rows } of this.leaves) {
      let last: KeyedRow | undefined;
      const reader = new TokenRangeReader(rows, spans, SCAN_START, this.settings.fetchSize, {
        onTombstoneSkip: (skip) => {
          if (skip.kind === 'partition-rest') filter.addKey(kind, skip.bucketId, skip.parent);
          this.log.warn('the filter build left part of a table out because of tombstones', { kind, skip: skip.kind });
        },
      });
      for (;;) {
        if (signal.aborted) return undefined;
        const page = await reader.nextPage();
        if (page === undefined) break;
        for (const r of page) {
          if (last === undefined || r.parent !== last.parent || r.bucketId !== last.bucketId) filter.addKey(kind, r.bucketId, r.parent);
          last = r;
        }
        keys += page.length;
        this.metrics.keysAdded.inc({ kind }, page.length);
        await this.throttle(page.length, signal);
      }
    }
    const chunks = filter.toChunks(this.settings.chunkBytes);
    await this.repo.writeChunks(generation.generation, source, chunks);
    const row: HostFilterRow = { ...base, complete: true, chunks: chunks.length, keys, setBits: filter.setBits(), completedAt: this.clock.now() };
    await this.repo.saveHost(row);
    const seconds = (performance.now() - began) / 1000;
    this.log.info('folder filter built', {
      generation: generation.generation,
      keys,
      chunks: chunks.length,
      bytes: generation.shape.bits / 8,
      seconds: Math.round(seconds * 1000) / 1000,
      keysPerSecond: seconds > 0 ? Math.round(keys / seconds) : undefined,
    });
    return row;
  }

  private async throttle(rows: number, signal: AbortSignal): Promise<void> {
    if (!this.limiter || rows === 0) return;
    const waitMs = this.limiter.reserve(rows);
    if (waitMs > 0) await sleep(waitMs, signal);
  }
}
