import type { Readable } from 'stream';
import type { BlockManager, BlockRef, StoredBody } from '@ostore/storage/blocks';
import type { BlockEntry, IndexRow, Metastore, NewestReadGroups, RowReadOptions, VersionLocator, VersionMetaRow, VersionRow } from '@ostore/metastore/data-access';
import type { BodyVerifier, ByteRange, ChecksumAlgorithm } from './api';
import type { BucketKey } from './bucket-key';
import { receiveBody, ReceivedBody, storeBody } from './body';
import { splitKey } from './keys';
import { objectsSource, versionsSource } from './listing/sources';
import type { RowFilter, TreeSource } from './listing/tree-walker';
import { versionKeyFilter } from './listing/version-filter';
import type { S3CoreSettings } from './s3-core.options';
import type { QuotaGuard, QuotaTicket, QuotaWant } from './quota/quota-guard';
import type { UsageRecorder } from './usage';
import { uuidBytes, vtsOfVid } from './version-ids';
import { blockRefs, versionRef } from './version-mapping';

export type { BucketKey } from './bucket-key';

/**
 * The reads, block operations and usage reports the S3 services need around versions, over
 * collaborators nobody else reaches: VersionStore (the write protocol) extends it, and services
 * only ever hold a VersionStore.
 */
export abstract class VersionData {
  constructor(
    protected readonly ms: Metastore,
    protected readonly blocks: BlockManager,
    protected readonly settings: S3CoreSettings,
    private readonly usage: UsageRecorder,
    /** Quota admission and the live ledger (see QuotaGuard). */
    readonly quota: QuotaGuard,
    /** GET and HEAD's newest-row reads in unversioned buckets, grouped per directory. */
    private readonly newestReads: NewestReadGroups,
  ) {}

  /**
   * The newest row of a key for GET and HEAD. In an unversioned bucket, where a key has one row,
   * read in one Cassandra read with the other keys of its directory asked for at the same time
   * (NewestReadGroups); a stale cached versioning status costs that read more rows, never a wrong one.
   */
  newestToServe(bucket: BucketKey, key: string, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    if (bucket.versioning !== 'Unversioned') return this.newest(bucket.bucketId, key, options);
    const { parent, name } = splitKey(key);
    return this.newestReads.newest(bucket.bucketId, parent, name, options);
  }

  /** The newest row of a key (markers and ghosts included). */
  async newest(bucketId: string, key: string, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    const { parent, name } = splitKey(key);
    return (await this.ms.versions.newest(bucketId, parent, name, 1, options))[0];
  }

  /** The current time in microseconds (write timestamps). */
  abstract nowMicros(): number;

  /** What a body, a key, a part list or a listing may be (the core's settings). */
  get limits(): Readonly<Pick<S3CoreSettings, 'maxKeyBytes' | 'maxPartNumber' | 'minPartSize' | 'listingLevelBudget'>> {
    return this.settings;
  }

  /** Where the row of a vid of a key is (its vts is part of the vid). */
  locatorOf(bucketId: string, key: string, vid: string): VersionLocator {
    const { parent, name } = splitKey(key);
    return { bucketId, parent, name, vts: vtsOfVid(uuidBytes(vid)), vid };
  }

  /** One version row of a key by its vid (whatever kind it is), or undefined. */
  versionRow(bucketId: string, key: string, vid: string, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    return this.ms.versions.get(this.locatorOf(bucketId, key, vid), options);
  }

  /** The row at a locator, or undefined. */
  rowAt(loc: VersionLocator, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    return this.ms.versions.get(loc, options);
  }

  /** The null rows of a key, newest first (more than one only while writers converge). */
  nullRows(bucketId: string, key: string): Promise<VersionLocator[]> {
    const { parent, name } = splitKey(key);
    return this.ms.versions.nullRows(bucketId, parent, name);
  }

  /** The manifest (block list) of a version or of a claimed completion. */
  readBlocks(vid: string): Promise<BlockEntry[]> {
    return this.ms.versions.readBlocks(vid);
  }

  /** The blocks of a version: none, without a read, when its body is in its row. */
  blocksOf(row: Pick<VersionRow, 'vid' | 'inlineBody'>): Promise<BlockEntry[]> {
    return row.inlineBody ? Promise.resolve([]) : this.readBlocks(row.vid);
  }

  /** The `version_meta` row of a version (with its inline body only when asked). */
  readMeta(vid: string, options: { inlineBody?: boolean } = {}): Promise<VersionMetaRow | undefined> {
    return this.ms.versions.readMeta(vid, options);
  }

  /**
   * The metadata of a row read with its body columns: the row's snapshot, else `version_meta`
   * (with the inline body unless the row holds it).
   */
  async metaOf(row: VersionRow): Promise<VersionMetaRow | undefined> {
    return row.snapshot ?? (await this.ms.versions.readMeta(row.vid, { inlineBody: !row.inlineBody }));
  }

  /** The inline body of a version stored without blocks: in its row, else in its metadata row. */
  async inlineBodyOf(row: Pick<VersionRow, 'vid' | 'inlineBody'>): Promise<Buffer | undefined> {
    return row.inlineBody ?? (await this.ms.versions.readMeta(row.vid, { inlineBody: true }))?.inlineBody;
  }

  /**
   * Changes the tags, ACL or encryption record of a version: the row's snapshot goes first, so that
   * whatever happens next no reader sees the old values once this returns. False when the version is gone.
   *
   * A version written without a `version_meta` row (S3CoreSettings.rowOnlyMeta: its snapshot is
   * the only copy) gets one from the snapshot before the snapshot goes (`IF NOT EXISTS`: a version
   * that has one keeps it). If the version was removed meanwhile, its remover may have deleted
   * `version_meta` before that write: the version row is then looked up again, and a row written
   * here for a version that is gone is deleted again (a remover after that look-up deletes it
   * itself), so no metadata row outlives its version.
   */
  async updateMeta(row: VersionRow, change: { tags?: Record<string, string>; acl?: string; sse?: string }): Promise<boolean> {
    const snapshot = row.snapshot ?? (await this.ms.versions.get(row, { body: true }))?.snapshot;
    const wrote = snapshot ? await this.ms.versions.insertMetaIfAbsent(snapshot) : false;
    await this.ms.versions.dropSnapshot(row, this.nowMicros());
    const applied = await this.ms.versions.updateMeta(row.vid, change);
    if (wrote && !(await this.ms.versions.get(row))) {
      await this.ms.versions.deleteManifest(row.vid, { blocks: false });
      return false;
    }
    return applied;
  }

  /** The current objects of a bucket as a tree (for listings). */
  objectsTree(bucketId: string): TreeSource<IndexRow> {
    return objectsSource(this.ms, bucketId);
  }

  /** Every version row of a bucket as a tree, and the filter ListObjectVersions applies to a key's rows. */
  versionsTree(bucketId: string, latest?: Set<VersionRow>) {
    return {
      source: versionsSource(this.ms, bucketId) as TreeSource<VersionRow>,
      keyFilter: versionKeyFilter(this.ms, bucketId, latest) as (key: string, resumed: boolean) => Promise<RowFilter<VersionRow>>,
    };
  }

  /** Receives a PUT body: inline when small enough (see S3CoreSettings.inlineBodyMaxBytes), else into blocks. */
  receiveBody(body: Readable, algorithms: ChecksumAlgorithm[] | undefined, verify: BodyVerifier | undefined, dataKey?: Buffer): Promise<ReceivedBody> {
    return receiveBody(this.blocks, body, algorithms, verify, this.settings.inlineBodyMaxBytes, dataKey);
  }

  /** Streams a body into blocks (in flight until referenced), digested and verified, sealed with `dataKey` if given (see storeBody). */
  storeBody(body: Readable, algorithms: ChecksumAlgorithm[] | undefined, verify: BodyVerifier | undefined, dataKey?: Buffer) {
    return storeBody(this.blocks, body, algorithms, verify, dataKey);
  }

  /** Writes a stream into new blocks (in flight until referenced). */
  writeBlocks(body: Readable, tier?: string): Promise<StoredBody> {
    return this.blocks.writeStream(body, tier ? { tier } : undefined);
  }

  /** The bytes of blocks (a range of them). */
  openBlocks(blocks: BlockRef[], range?: ByteRange): Readable {
    return this.blocks.openRead(blockRefs(blocks), range);
  }

  /** Gives up blocks still in flight (never referenced). Never throws: the block GC reclaims what this misses. */
  async discardBlocks(blocks: BlockRef[]): Promise<void> {
    if (blocks.length > 0) await this.blocks.discard(blockRefs(blocks)).catch(() => undefined);
  }

  /** Adds `ref` to blocks (they stop being in flight). */
  async addRefs(blocks: BlockRef[], ref: string): Promise<void> {
    if (blocks.length > 0) await this.blocks.addRefs(blockRefs(blocks), ref);
  }

  /** Removes `ref` from blocks (a block without references is deleted). */
  async releaseRefs(blocks: BlockRef[], ref: string): Promise<void> {
    if (blocks.length > 0) await this.blocks.releaseRefs(blockRefs(blocks), ref);
  }

  /** Drops the manifest of a version that never became visible (or is gone), its references first. */
  async dropManifest(vid: string): Promise<void> {
    await this.releaseRefs(await this.ms.versions.readBlocks(vid), versionRef(vid));
    await this.ms.versions.deleteManifest(vid);
  }

  /**
   * Reports a committed change of the bucket's bytes and objects (nothing for 0, 0): to the usage
   * recorder (stats) and, for a quota bucket, to its live ledger. Gives up `ticket` at once (the
   * ledger change, summed or in flight, now stands for its reservation) and, when the guard writes
   * the change at once (near the limit, see QuotaGuard.record), resolves once the ledger has it.
   */
  async recordUsage(bucket: BucketKey, kind: 'store' | 'remove' | 'copy', bytes: number, objects = 0, ticket?: QuotaTicket, eventId?: string): Promise<void> {
    let landed: Promise<void> | undefined;
    if (bytes !== 0 || objects !== 0) {
      this.usage.record({ bucketId: bucket.bucketId, bucket: bucket.name, kind, bytes, objects, ...(eventId ? { eventId } : {}) });
      landed = this.quota.record(bucket, { bytes, objects }, ticket);
    }
    ticket?.release();
    await landed;
  }

  /** Admits a write into a quota bucket before its body is stored (QuotaExceeded); undefined without a quota. */
  admitQuota(bucket: BucketKey, want: QuotaWant): Promise<QuotaTicket | undefined> {
    return this.quota.admit(bucket, want);
  }

  /** After the body is stored: its real size must still fit (else its blocks are discarded and QuotaExceeded thrown). */
  async fitQuota(ticket: QuotaTicket | undefined, bytes: number, blocks: BlockRef[]): Promise<void> {
    if (!ticket) return;
    try {
      await this.quota.fit(ticket, bytes);
    } catch (e) {
      await this.discardBlocks(blocks);
      throw e;
    }
  }
}
