import { defaultNewestReadGroupSettings, type NewestReadGroupSettings } from '@ostore/metastore/data-access';
import { defaultQuotaLedgerSettings, QuotaLedgerSettings } from './quota/quota-state';

/** Tunables of the S3 core (all optional). */
export interface S3CoreSettings {
  /** Minimum size of every part but the last at CompleteMultipartUpload (S3: 5 MiB). */
  minPartSize: number;
  /** Highest part number (S3: 10,000). */
  maxPartNumber: number;
  /**
   * Lifetime of ghost rows: the invisible null delete markers that DeleteObject writes in an
   * unversioned bucket so that a racing slower PUT can never resurrect the deleted key. Must
   * exceed the longest possible PUT (request timeout); expired ghosts become ordinary tombstones.
   */
  ghostTtlSeconds: number;
  /** Longest key in UTF-8 bytes (S3: 1024). */
  maxKeyBytes: number;
  /** Lifetime of the LWT claim a conditional PUT holds while it commits. */
  conditionalClaimTtlSeconds: number;
  /**
   * Bodies of PutObject/CopyObject up to this many bytes are stored inline in the version's
   * metadata row (no block-store write, no block LWT, one read on GET); larger ones go to blocks.
   * 0 stores every body in blocks. At most 1 MiB (a Cassandra cell should stay small).
   */
  inlineBodyMaxBytes: number;
  /**
   * Inline bodies up to this many bytes are stored in the version's `versions` row itself (with a
   * snapshot of its metadata), so that GET makes one Cassandra read; larger inline bodies stay in
   * `version_meta` (two reads). The bytes make the directory's partition larger
   * (ListObjectVersions and the lifecycle scan read past them). Default: 64 KiB, the inline
   * limit, so that GET and HEAD of every inline object are one read. 0: never.
   */
  rowBodyMaxBytes: number;
  /**
   * A version whose body is in its row (rowBodyMaxBytes) and that has no tags and no encryption
   * gets no `version_meta` row: the row's metadata snapshot is its only copy, one Cassandra write
   * less per PUT (VersionStore.commit). A tag or ACL change writes `version_meta` from the
   * snapshot first (VersionData.updateMeta). false: every version gets its `version_meta` row.
   */
  rowOnlyMeta: boolean;
  /**
   * Who removes the null version an unversioned (or suspended) PUT, CopyObject or multipart
   * completion replaces. 'write': the writer, after its mutation (one `null_versions` read per
   * such write, a third of Cassandra's work for a small PUT). 'scan': the writer reads nothing,
   * unless the bucket has a quota (its usage must stay exact) or this process wrote a null version
   * of the key lately (`recentNullKeys`: a rewritten key); a replaced version is otherwise removed
   * by the lifecycle scan and the scheduler (ScannedObject.staleNulls), within about a scan
   * interval: until then its blocks stay stored and the bucket's usage counts it. Readers never
   * show it either way. DELETE's markers and ghosts always converge at once.
   */
  nullConvergence: 'write' | 'scan';
  /** How many keys ('scan') this process remembers having written a null version of (RecentKeys). */
  recentNullKeys: number;
  /**
   * How long a gateway may reuse a bucket row it read (ms; 0: read on every request). Changes made
   * through this process invalidate it at once; another gateway's change (versioning, ACL, deletion
   * or re-creation of the name) is seen here after at most this long.
   */
  bucketCacheTtlMs: number;
  /**
   * How long this process skips rewriting a folder row it wrote itself (ms; 0: write on every
   * commit). See FolderCache for what a folder-row cleanup must then respect.
   */
  folderCacheTtlMs: number;
  /** How quota admissions share ledger reads and batch ledger updates (see QuotaGuard). */
  quota: QuotaLedgerSettings;
  /**
   * The longest a version's partition mutation can be in flight, from its vts to its landing (ms):
   * twice the Cassandra request timeout plus a margin for clock skew between gateways. A writer
   * sends its mutation within half of it (else it checks the index itself); an index repair is
   * looked at again this long after it (see IndexRechecks).
   */
  indexFlightMs: number;
  /**
   * Directory levels of a listing's start key (marker, start-after, token, key-marker) that one
   * listing request reads (see WalkOptions.levelBudget): deeper start keys are resumed over several
   * pages (a continuation token) instead of costing two queries per level. Infinity: no bound.
   */
  listingLevelBudget: number;
  /**
   * GET and HEAD of unversioned buckets: the newest-row reads of keys of one directory asked for at
   * the same time go to Cassandra as one read (NewestReadGroups; maxKeys 1: each read alone).
   */
  newestReadGroups: NewestReadGroupSettings;
}

export const defaultS3CoreSettings: S3CoreSettings = {
  minPartSize: 5 * 1024 * 1024,
  maxPartNumber: 10000,
  ghostTtlSeconds: 86400,
  maxKeyBytes: 1024,
  conditionalClaimTtlSeconds: 60,
  inlineBodyMaxBytes: 64 * 1024,
  rowBodyMaxBytes: 64 * 1024,
  rowOnlyMeta: true,
  nullConvergence: 'write',
  recentNullKeys: 65_536,
  bucketCacheTtlMs: 2000,
  folderCacheTtlMs: 0,
  quota: defaultQuotaLedgerSettings,
  indexFlightMs: 25_000,
  listingLevelBudget: 32,
  newestReadGroups: defaultNewestReadGroupSettings,
};
