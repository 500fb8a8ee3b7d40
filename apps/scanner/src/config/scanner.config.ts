import { envVar, parseEnv, z } from '@ostore/shared/config';
import { QUEUE_BACKENDS, QueueBackend } from '@ostore/queue/data-access';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';
import { FOLDER_CLEANUP_ENV, FolderCleanupConfig, toFolderCleanupConfig } from './folder-cleanup.config';

const TABLES = ['versions', 'uploads', 'block_refs'] as const;
export type ScannedTableName = (typeof TABLES)[number];

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9101),
  /** The Cassandra node this scanner sits beside, as the driver names it (default: the first contact point). */
  SCANNER_NODE_ADDRESS: z.string().min(1).optional(),
  /** 0-based index of that node (the pod ordinal): the Kafka partition the scanner publishes to. */
  SCANNER_HOST_INDEX: envVar.int(0, 0, 1023),
  /** The scanner's identity in scan_state and in candidates (default: the node's Cassandra host id). */
  SCANNER_HOST_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be 1-200 letters, digits, . _ : -')
    .optional(),
  /** Seconds from the start of one pass to the start of the next (a pass longer than that is followed at once). */
  SCAN_INTERVAL_SECONDS: envVar.int(3600, 1, 30 * 86400),
  /** Rows per page of the range queries. */
  SCAN_FETCH_SIZE: envVar.int(2000, 10, 50000),
  /** Rows read per second at most (0: unlimited), so the node's S3 traffic keeps its share. */
  SCAN_RATE_LIMIT_ROWS_PER_SECOND: envVar.int(20000, 0),
  /** How often a running pass saves its position. */
  SCAN_CHECKPOINT_SECONDS: envVar.int(10, 1, 3600),
  /** Most candidates per publish call. */
  SCAN_PUBLISH_BATCH: envVar.int(500, 1, 10000),
  /** The tables scanned, in this order. */
  SCAN_TABLES: envVar
    .list('versions,uploads,block_refs')
    .refine((l) => l.every((t) => (TABLES as readonly string[]).includes(t)), `must list tables of ${TABLES.join(', ')}`),
  /** Debug timing: a lifecycle "day" lasts this many seconds (unset or 0: AWS's days). */
  LIFECYCLE_DEBUG_DAY_SECONDS: envVar.int(0, 0, 86400),
  /** A version whose action is later than this counts in ostore_lifecycle_overdue_versions. */
  LIFECYCLE_OVERDUE_GRACE_SECONDS: envVar.int(86400, 0),
  /** Where candidates go: Kafka topics, or the Cassandra-table queue. */
  QUEUE_BACKEND: envVar.enumOf([...QUEUE_BACKENDS] as [QueueBackend, ...QueueBackend[]], 'kafka'),
  ...FOLDER_CLEANUP_ENV,
});

/** The scanner's configuration, validated once at boot. */
export interface ScannerConfig extends BaseConfig {
  scan: {
    nodeAddress: string;
    hostIndex: number;
    hostId?: string;
    intervalMs: number;
    fetchSize: number;
    rowsPerSecond: number;
    checkpointMs: number;
    publishBatch: number;
    tables: ScannedTableName[];
  };
  lifecycle: {
    /** 0: AWS day arithmetic. */
    debugDaySeconds: number;
    overdueGraceMs: number;
  };
  queueBackend: QueueBackend;
  folders: FolderCleanupConfig;
}

export function loadScannerConfig(env: Record<string, string | undefined> = process.env): ScannerConfig {
  const parsed = parseEnv(schema, env);
  const base = toBaseConfig('scanner', parsed, parsed.MANAGEMENT_PORT);
  return {
    ...base,
    scan: {
      nodeAddress: parsed.SCANNER_NODE_ADDRESS ?? base.cassandra.contactPoints[0],
      hostIndex: parsed.SCANNER_HOST_INDEX,
      hostId: parsed.SCANNER_HOST_ID,
      intervalMs: parsed.SCAN_INTERVAL_SECONDS * 1000,
      fetchSize: parsed.SCAN_FETCH_SIZE,
      rowsPerSecond: parsed.SCAN_RATE_LIMIT_ROWS_PER_SECOND,
      checkpointMs: parsed.SCAN_CHECKPOINT_SECONDS * 1000,
      publishBatch: parsed.SCAN_PUBLISH_BATCH,
      tables: [...new Set(parsed.SCAN_TABLES)] as ScannedTableName[],
    },
    lifecycle: {
      debugDaySeconds: parsed.LIFECYCLE_DEBUG_DAY_SECONDS,
      overdueGraceMs: parsed.LIFECYCLE_OVERDUE_GRACE_SECONDS * 1000,
    },
    queueBackend: parsed.QUEUE_BACKEND,
    folders: toFolderCleanupConfig(parsed),
  };
}
