import { Migration } from '../migration';
import { baseline } from './001-baseline';
import { blockStore } from './002-block-store';
import { queue } from './003-queue';
import { scanState } from './004-scan-state';
import { inlineBodies } from './005-inline-bodies';
import { rowSnapshots } from './006-row-snapshots';
import { folderCleanup } from './007-folder-cleanup';
import { usageEvents } from './008-usage-events';
import { quotaLedger } from './009-quota-ledger';
import { scanSnapshots } from './010-scan-snapshots';
import { bucketAccess } from './011-bucket-access';
import { bucketCors } from './012-bucket-cors';
import { nullRowSummary } from './013-null-row-summary';
import { folderGcGrace } from './014-folder-gc-grace';
import { encryption } from './016-encryption';
import { compactUsageEvents } from './018-compact-usage-events';
import { folderFilterSalt } from './019-folder-filter-salt';
import { folderTombstoneCompaction } from './020-folder-tombstone-compaction';
import { checksumTypes } from './023-checksum-types';
import { uploadPartsEpoch } from './024-upload-parts-epoch';

/** Every migration, in version order. Append only: a landed migration is never edited. */
export const migrations: Migration[] = [
  baseline,
  blockStore,
  queue,
  scanState,
  inlineBodies,
  rowSnapshots,
  folderCleanup,
  usageEvents,
  quotaLedger,
  scanSnapshots,
  bucketAccess,
  bucketCors,
  nullRowSummary,
  folderGcGrace,
  encryption,
  compactUsageEvents,
  folderFilterSalt,
  folderTombstoneCompaction,
  checksumTypes,
  uploadPartsEpoch,
];
