import { BucketCatalog, SCAN_START, ScanLog, TokenRangeReader, TokenSpan } from '@ostore/lifecycle/scan';
import { DirectoryFilter, DirectoryKind, FilterGeneration } from '@ostore/folders/cleanup';
import { CleanupPassStat, FolderFilterRepository, HostFilterRow } from '@ostore/metastore/data-access';
import { FolderCandidate, MessageContractError, partitionForHost, QueueName } from '@ostore/queue/contracts';
import { QueueProducer } from '@ostore/queue/data-access';
import { KindSource } from './key-tables';
import { ScannerFolderMetrics } from './folder-cleanup.metrics';

/** The queue of each folder index. */
export const FOLDER_QUEUE_OF: Readonly<Record<DirectoryKind, QueueName>> = {
  object: 'object-folders',
  version: 'version-folders',
  upload: 'upload-folders',
};

/** How a folder scan reads and publishes. */
export interface FolderScanSettings {
  readonly fetchSize: number;
  /** Index of this scanner's host: it publishes to partition `partitionForHost(hostIndex, partitions)`. */
  readonly hostIndex: number;
  /** Candidates per directory partition (parent) and pass at most: the soft part of the cleanup. */
  readonly maxPerParent: number;
  /** Candidates per publish call. */
  readonly publishBatch: number;
}

/**
 * The folder scan: reads the three folder tables in the node's primary token ranges and publishes
 * every directory absent from the combined filter (the OR of every host's filter of one
 * generation) as a FolderCandidate to its kind's queue, on this host's partition.
 *
 * Soft: at most `maxPerParent` candidates per parent partition and pass, so a parent with 50,000
 * empty children is cleaned over several passes and never receives a burst of tombstones (the
 * scheduler bounds its deletions per parent again). Directories the filter holds by a false
 * positive wait for a later generation; nested empty directories go bottom-up because the
 * scheduler deletes a directory only once it has no child folder left.
 */
export class FolderScanJob {
  constructor(
    private readonly folders: readonly KindSource[],
    private readonly repo: FolderFilterRepository,
    private readonly buckets: BucketCatalog,
    private readonly producer: QueueProducer,
    private readonly settings: FolderScanSettings,
    private readonly metrics: ScannerFolderMetrics,
    private readonly log: ScanLog,
  ) {}

  /** The OR of the stored filters of `hosts` (all complete, of `generation`). */
  async combinedFilter(generation: FilterGeneration, hosts: readonly HostFilterRow[]): Promise<DirectoryFilter> {
    const combined = DirectoryFilter.create(generation.shape);
    for (const h of hosts) {
      const chunks = await this.repo.readChunks(generation.generation, h.source, h.chunks);
      combined.orWith(DirectoryFilter.fromChunks(generation.shape, chunks));
    }
    return combined;
  }

  /** Judges every local folder row by `filter` (of filter generation `generation`, which each candidate carries); undefined when stopped (nothing more is published). */
  async scan(filter: DirectoryFilter, generation: number, spans: readonly TokenSpan[], signal: AbortSignal): Promise<CleanupPassStat | undefined> {
    const stat: CleanupPassStat = { checked: 0, foundEmpty: 0, published: 0, byKind: {} };
    await this.buckets.load();
    for (const { kind, source } of this.folders) {
      const own = (stat.byKind![kind] = { checked: 0, foundEmpty: 0, published: 0 });
      const queue = FOLDER_QUEUE_OF[kind];
      const partition = partitionForHost(this.settings.hostIndex, await this.producer.partitionCount(queue));
      const pending: string[] = [];
      const flush = async () => {
        if (pending.length === 0) return;
        await this.producer.publish(queue, partition, pending);
        this.metrics.published.inc({ kind }, pending.length);
        stat.published += pending.length;
        own.published += pending.length;
        pending.length = 0;
      };
      const reader = new TokenRangeReader(source, spans, SCAN_START, this.settings.fetchSize);
      let partitionKey = '';
      let inPartition = 0;
      for (;;) {
        if (signal.aborted) return undefined;
        const page = await reader.nextPage();
        if (page === undefined) break;
        this.metrics.checked.inc({ kind }, page.length);
        stat.checked += page.length;
        own.checked += page.length;
        for (const row of page) {
          if (filter.mayContain(kind, row.bucketId, row.parent + row.name)) continue;
          stat.foundEmpty++;
          own.foundEmpty++;
          this.metrics.foundEmpty.inc({ kind });
          const key = `${row.bucketId}\u0000${row.parent}`;
          if (key !== partitionKey) {
            partitionKey = key;
            inPartition = 0;
          }
          if (inPartition >= this.settings.maxPerParent) continue;
          const message = await this.candidate(kind, row.bucketId, row.parent, row.name, generation);
          if (message === undefined) continue;
          inPartition++;
          pending.push(message);
          if (pending.length >= this.settings.publishBatch) await flush();
        }
      }
      await flush();
    }
    return stat;
  }

  private async candidate(kind: DirectoryKind, bucketId: string, parent: string, name: string, generation: number): Promise<string | undefined> {
    const bucket = this.buckets.peek(bucketId) ?? (await this.buckets.get(bucketId));
    if (!bucket) return undefined; // a deleted bucket: its rows are not the cleanup's
    try {
      return FolderCandidate.toMessage({ bucketId, bucket: bucket.name, parent, name, kind, generation });
    } catch (e) {
      if (!(e instanceof MessageContractError)) throw e;
      this.log.warn('folder candidate rejected by its contract; skipped', { bucketId, parent, name, err: e.message });
      return undefined;
    }
  }
}
