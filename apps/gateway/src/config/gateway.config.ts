import { readFileSync } from 'fs';
import { ConfigError, envVar, parseEnv, z } from '@ostore/shared/config';
import { USAGE_DELTA_MODES, UsageConfig, usageConfigOf } from '@ostore/queue/data-access';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';
import { ACCESS_KEY_ID_PATTERN, MAX_ACCESS_KEY_ID_LENGTH, MAX_USER_ID_LENGTH, USER_ID_PATTERN } from '@ostore/s3/core';
import { SSE_ENV, SseConfig, sseConfigOf } from './sse.config';
import { DEFAULT_READ_SIZE, DEFAULT_WRITE_BUFFER_BYTES, type DirectIoMode } from '@ostore/storage/blocks';

/** Words that mark a token copied from an example rather than generated (e.g. `REPLACE-ME-with-a-long-random-token`). */
const PLACEHOLDER_WORDS = ['replace', 'changeme', 'change-me', 'change_me', 'placeholder', 'example', 'your-token', 'yourtoken', 'dummy', 'insecure', 'password', 'secret'];

/**
 * An admin token: at least 16 characters, at least 8 different ones (not `0000000000000000`), and
 * none of the words of an example value: a placeholder copied from documentation or a manifest
 * would open the admin API to anyone who read the same text, so the gateway refuses to start.
 */
const adminToken = z
  .string()
  .min(16, 'must be at least 16 characters')
  .refine((t) => new Set(t).size >= 8, 'must have at least 8 different characters (generate it, e.g. `openssl rand -hex 32`)')
  .refine((t) => !PLACEHOLDER_WORDS.some((w) => t.toLowerCase().includes(w)), 'looks like a placeholder (generate it, e.g. `openssl rand -hex 32`)');

const schema = baseEnvSchema
  .extend({
    MANAGEMENT_PORT: envVar.port(9100),
    /** Gateway processes sharing the S3 socket (node:cluster); 1: this process serves alone. */
    GATEWAY_WORKERS: envVar.int(1, 1, 64),
    /** Set by the primary for each worker it forks (0 .. GATEWAY_WORKERS-1, kept by a replacement): the worker's own usage spool. */
    GATEWAY_WORKER_INDEX: z.coerce.number().int().min(0).max(63).optional(),
    S3_HOST: envVar.string('0.0.0.0'),
    S3_PORT: envVar.port(9000),
    S3_REGION: envVar.string('us-east-1'),
    /** Host names of the service: `<bucket>.<domain>` is virtual-host addressing. */
    S3_DOMAINS: envVar.list('localhost,s3.local'),
    S3_MAX_CLOCK_SKEW_SECONDS: envVar.int(900, 1, 86400),
    S3_AUTH_CACHE_MS: envVar.int(5000, 0, 600000),
    /** How long an access key id the metastore does not know is answered InvalidAccessKeyId without a read. */
    S3_AUTH_NEGATIVE_CACHE_MS: envVar.int(1000, 0, 600000),
    /** Most access keys cached; past it the least recently used one goes. */
    S3_AUTH_CACHE_MAX_KEYS: envVar.int(10_000, 1, 10_000_000),
    /** Accept Signature Version 2 (header and presigned query, V2 POST policies); off, V2 is refused as S3 refuses it in SigV4-only regions. */
    S3_SIGV2: envVar.bool(true),
    /** Object Ownership of a bucket created without x-amz-object-ownership (AWS's default since 2023: ACLs disabled). */
    S3_DEFAULT_OBJECT_OWNERSHIP: z.enum(['BucketOwnerEnforced', 'BucketOwnerPreferred', 'ObjectWriter']).default('BucketOwnerEnforced'),
    /** Most buckets one user may own; CreateBucket past it is TooManyBuckets (AWS's default quota). */
    S3_MAX_BUCKETS_PER_USER: envVar.int(10_000, 1, 1_000_000),
    /** Longest wait for a request's headers once its connection has sent something. */
    S3_HEADERS_TIMEOUT_MS: envVar.int(20_000, 100, 600_000),
    /** A request whose body sends nothing for this long answers 400 RequestTimeout and loses its connection (AWS: ~20 s). */
    S3_REQUEST_IDLE_TIMEOUT_MS: envVar.int(20_000, 100, 600_000),
    /** How long an idle keep-alive connection is kept open between requests. */
    S3_KEEP_ALIVE_TIMEOUT_MS: envVar.int(65_000, 100, 600_000),
    /** Most simultaneous connections to the S3 port; further ones are closed at once. */
    S3_MAX_CONNECTIONS: envVar.int(10_000, 1, 1_000_000),
    /** Bodies up to this size are stored inline in the metastore, not in blocks (0: never). */
    S3_INLINE_BODY_MAX_BYTES: envVar.int(64 * 1024, 0, 1024 * 1024),
    /** Inline bodies up to this size are stored in the version row itself: GET is one read. */
    S3_ROW_BODY_MAX_BYTES: envVar.int(64 * 1024, 0, 64 * 1024),
    S3_ROW_ONLY_META: envVar.bool(true),
    /** Who removes the null version an unversioned PUT replaces: the lifecycle scan, unless this gateway wrote the key lately or the bucket has a quota ('scan'), or always the writer ('write'). */
    S3_NULL_CONVERGENCE: z.enum(['write', 'scan']).default('scan'),
    /** Most keys of one directory whose concurrent GET/HEAD reads (unversioned buckets) share one Cassandra read (1: no sharing). */
    S3_READ_GROUP_MAX_KEYS: envVar.int(32, 1, 256),
    /** How long such a read of a busy directory (one read asked for within this long before) waits for more keys (0: never). */
    S3_READ_GROUP_LINGER_MS: envVar.int(1, 0, 100),
    /** Such reads of one directory in flight at once; further ones wait for an answer and go together. */
    S3_READ_GROUP_IN_FLIGHT: envVar.int(2, 1, 1024),
    /** How long a bucket row is reused; another gateway's bucket change is seen after at most this. */
    S3_BUCKET_CACHE_MS: envVar.int(2000, 0, 60000),
    /** How long a folder row this gateway wrote is not rewritten by its later PUTs (0: always write). */
    S3_FOLDER_CACHE_MS: envVar.int(30000, 0, 600000),
    /** How long a quota admission far from the limit reuses a ledger read, and how long ledger updates are summed (0: never). */
    QUOTA_LEDGER_INTERVAL_MS: envVar.int(250, 0, 10_000),
    /** The last share of a quota (percent of the limit, at least the bytes/objects below) where every admission reads and writes the ledger. */
    QUOTA_EXACT_HEADROOM_PERCENT: envVar.int(10, 0, 100),
    QUOTA_EXACT_HEADROOM_BYTES: envVar.int(2 ** 30),
    QUOTA_EXACT_HEADROOM_OBJECTS: envVar.int(10_000),
    /** A user + key created at start if missing (local development, first admin). */
    S3_BOOTSTRAP_USER: z
      .string()
      .regex(USER_ID_PATTERN, `must be 1-${MAX_USER_ID_LENGTH} of A-Z a-z 0-9 . _ @ -`)
      .optional(),
    S3_BOOTSTRAP_ACCESS_KEY_ID: z
      .string()
      .regex(ACCESS_KEY_ID_PATTERN, `must be 16-${MAX_ACCESS_KEY_ID_LENGTH} letters or digits`)
      .optional(),
    S3_BOOTSTRAP_SECRET_ACCESS_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Bearer token of the admin HTTP API; the API is off without it (or ADMIN_TOKEN_FILE). */
    ADMIN_TOKEN: adminToken.optional(),
    /** A file holding the admin token (a mounted secret), instead of ADMIN_TOKEN. */
    ADMIN_TOKEN_FILE: z.string().min(1).optional(),
    /** Address of the admin API's own listener. */
    ADMIN_HOST: envVar.string('127.0.0.1'),
    /** Port of the admin API's own listener (the management port never serves it). */
    ADMIN_PORT: envVar.port(9104),
    /** The stats app's management URL: `bucket usage` / `bucket list` of buckets without a quota read current usage there. */
    ADMIN_STATS_URL: z.string().url().optional(),
    BLOCK_STORE: z.enum(['fs', 'cassandra']).default('fs'),
    BLOCK_STORE_DIR: envVar.string('.stack/blocks'),
    /**
     * The 'fs' store's use of O_DIRECT: 'writes' (block writes bypass the page cache), 'all' (reads
     * too), or 'off'. A filesystem without O_DIRECT falls back to buffered I/O by itself.
     */
    BLOCK_FS_DIRECT_IO: z.enum(['writes', 'all', 'off']).default('writes'),
    BLOCK_SIZE_BYTES: envVar.int(8 * 1024 * 1024, 64 * 1024, 64 * 1024 * 1024),
    /** The unit a GET reads a block in (the response streams it a read at a time, one read ahead). */
    BLOCK_READ_SIZE_BYTES: envVar.int(DEFAULT_READ_SIZE, 64 * 1024, 16 * 1024 * 1024),
    /** Shared memory kept for the blocks of bodies being written (at least two blocks' worth is used). */
    BLOCK_WRITE_BUFFER_BYTES: envVar.int(DEFAULT_WRITE_BUFFER_BYTES, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    BLOCK_COLD_DIR: envVar.string('.stack/blocks-cold'),
    BLOCK_GC_INTERVAL_SECONDS: envVar.int(60, 1, 86400),
    /** In-flight blocks carry a status TTL: an upload must finish within it. */
    BLOCK_IN_FLIGHT_TTL_SECONDS: envVar.int(3600, 1, 7 * 86400),
    /** Age after which uncommitted blocks are reclaimed (default: the in-flight TTL). */
    BLOCK_GC_GRACE_SECONDS: z.coerce.number().int().min(1).max(7 * 86400).optional(),
    /** Usage deltas (bytes stored, removed, copied per bucket) to the topic `s3-<cluster>-usage`, or nowhere. */
    USAGE_DELTAS: envVar.enumOf([...USAGE_DELTA_MODES], 'kafka'),
    /** Most usage deltas per Kafka send; a full batch is sent at once. */
    USAGE_BATCH_MAX: envVar.int(500, 1, 10_000),
    /** Longest a usage delta waits for its batch to fill. */
    USAGE_LINGER_MS: envVar.int(100, 0, 60_000),
    /** Usage deltas held in memory while Kafka fails; beyond this, new ones are dropped and counted. */
    USAGE_BUFFER_MAX: envVar.int(50_000, 1, 10_000_000),
    /** Directory of the usage delta spool (default: under the tmpdir): deltas past the buffer wait there, on disk. */
    USAGE_SPOOL_DIR: z.string().min(1).optional(),
    ...SSE_ENV,
  })
  .superRefine((env, ctx) => {
    if (env.ADMIN_PORT === env.MANAGEMENT_PORT) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['ADMIN_PORT'], message: 'must differ from MANAGEMENT_PORT' });
    }
    if (env.ADMIN_TOKEN !== undefined && env.ADMIN_TOKEN_FILE !== undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['ADMIN_TOKEN_FILE'], message: 'ADMIN_TOKEN and ADMIN_TOKEN_FILE exclude each other' });
    }
    const set = [env.S3_BOOTSTRAP_USER, env.S3_BOOTSTRAP_ACCESS_KEY_ID, env.S3_BOOTSTRAP_SECRET_ACCESS_KEY].filter((v) => v !== undefined).length;
    if (set !== 0 && set !== 3) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['S3_BOOTSTRAP_USER'],
        message: 'S3_BOOTSTRAP_USER, S3_BOOTSTRAP_ACCESS_KEY_ID and S3_BOOTSTRAP_SECRET_ACCESS_KEY go together',
      });
    }
  });

/** The gateway's configuration, validated once at boot. */
export interface GatewayConfig extends BaseConfig {
  /** GATEWAY_WORKERS: above 1, a node:cluster primary forks this many gateway workers (see runClusterPrimary). */
  workers: number;
  s3: {
    host: string;
    port: number;
    region: string;
    domains: string[];
    maxClockSkewMs: number;
    authCacheMs: number;
    authNegativeCacheMs: number;
    authCacheMaxKeys: number;
    /** Whether Signature Version 2 is accepted (S3_SIGV2). */
    sigV2: boolean;
    /** Object Ownership of a bucket created without x-amz-object-ownership (S3_DEFAULT_OBJECT_OWNERSHIP). */
    defaultObjectOwnership: 'BucketOwnerEnforced' | 'BucketOwnerPreferred' | 'ObjectWriter';
    maxBucketsPerUser: number;
    /** Timeouts and the connection limit of the S3 listener (S3_*_TIMEOUT_MS, S3_MAX_CONNECTIONS). */
    listener: { headersTimeoutMs: number; requestIdleTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections: number };
    inlineBodyMaxBytes: number;
    rowBodyMaxBytes: number;
    rowOnlyMeta: boolean;
    /** S3_NULL_CONVERGENCE (S3CoreSettings.nullConvergence). */
    nullConvergence: 'write' | 'scan';
    /** S3_READ_GROUP_* (S3CoreSettings.newestReadGroups). */
    readGroups: { maxKeys: number; lingerMs: number; maxInFlight: number };
    bucketCacheMs: number;
    folderCacheMs: number;
    /** Quota ledger batching (QUOTA_*; see QuotaGuard). */
    quota: { intervalMs: number; exactHeadroom: { ratio: number; bytes: number; objects: number } };
    bootstrap?: { user: string; accessKeyId: string; secretAccessKey: string };
  };
  /** The admin API: its token (none: the API is off) and its own listener (no port: the management port). */
  admin: { token?: string; host: string; port: number; statsUrl?: string };
  blocks: { store: 'fs' | 'cassandra'; dir: string; fsDirectIo: DirectIoMode; coldDir: string; blockSize: number; readSize: number; writeBufferBytes: number; gcIntervalMs: number; inFlightTtlSeconds: number; gcGraceMs: number };
  /** The usage delta publisher (USAGE_*); `sourceHost` is this host's name (the pod name). */
  usage: UsageConfig;
  /** Server-side encryption: master keys, SSE-C over HTTP (S3_SSE_*). */
  sse: SseConfig;
}

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('gateway', parsed, parsed.MANAGEMENT_PORT),
    workers: parsed.GATEWAY_WORKERS,
    s3: {
      host: parsed.S3_HOST,
      port: parsed.S3_PORT,
      region: parsed.S3_REGION,
      domains: parsed.S3_DOMAINS.map((d) => d.toLowerCase()),
      maxClockSkewMs: parsed.S3_MAX_CLOCK_SKEW_SECONDS * 1000,
      authCacheMs: parsed.S3_AUTH_CACHE_MS,
      authNegativeCacheMs: parsed.S3_AUTH_NEGATIVE_CACHE_MS,
      authCacheMaxKeys: parsed.S3_AUTH_CACHE_MAX_KEYS,
      sigV2: parsed.S3_SIGV2,
      defaultObjectOwnership: parsed.S3_DEFAULT_OBJECT_OWNERSHIP,
      maxBucketsPerUser: parsed.S3_MAX_BUCKETS_PER_USER,
      listener: {
        headersTimeoutMs: parsed.S3_HEADERS_TIMEOUT_MS,
        requestIdleTimeoutMs: parsed.S3_REQUEST_IDLE_TIMEOUT_MS,
        keepAliveTimeoutMs: parsed.S3_KEEP_ALIVE_TIMEOUT_MS,
        maxConnections: parsed.S3_MAX_CONNECTIONS,
      },
      inlineBodyMaxBytes: parsed.S3_INLINE_BODY_MAX_BYTES,
      rowBodyMaxBytes: parsed.S3_ROW_BODY_MAX_BYTES,
      rowOnlyMeta: parsed.S3_ROW_ONLY_META,
      nullConvergence: parsed.S3_NULL_CONVERGENCE,
      readGroups: { maxKeys: parsed.S3_READ_GROUP_MAX_KEYS, lingerMs: parsed.S3_READ_GROUP_LINGER_MS, maxInFlight: parsed.S3_READ_GROUP_IN_FLIGHT },
      bucketCacheMs: parsed.S3_BUCKET_CACHE_MS,
      folderCacheMs: parsed.S3_FOLDER_CACHE_MS,
      quota: {
        intervalMs: parsed.QUOTA_LEDGER_INTERVAL_MS,
        exactHeadroom: { ratio: parsed.QUOTA_EXACT_HEADROOM_PERCENT / 100, bytes: parsed.QUOTA_EXACT_HEADROOM_BYTES, objects: parsed.QUOTA_EXACT_HEADROOM_OBJECTS },
      },
      bootstrap:
        parsed.S3_BOOTSTRAP_USER && parsed.S3_BOOTSTRAP_ACCESS_KEY_ID && parsed.S3_BOOTSTRAP_SECRET_ACCESS_KEY
          ? { user: parsed.S3_BOOTSTRAP_USER, accessKeyId: parsed.S3_BOOTSTRAP_ACCESS_KEY_ID, secretAccessKey: parsed.S3_BOOTSTRAP_SECRET_ACCESS_KEY }
          : undefined,
    },
    admin: { token: parsed.ADMIN_TOKEN ?? adminTokenFromFile(parsed.ADMIN_TOKEN_FILE), host: parsed.ADMIN_HOST, port: parsed.ADMIN_PORT, statsUrl: parsed.ADMIN_STATS_URL },
    blocks: {
      store: parsed.BLOCK_STORE,
      dir: parsed.BLOCK_STORE_DIR,
      fsDirectIo: parsed.BLOCK_FS_DIRECT_IO,
      coldDir: parsed.BLOCK_COLD_DIR,
      blockSize: parsed.BLOCK_SIZE_BYTES,
      readSize: parsed.BLOCK_READ_SIZE_BYTES,
      writeBufferBytes: parsed.BLOCK_WRITE_BUFFER_BYTES,
      gcIntervalMs: parsed.BLOCK_GC_INTERVAL_SECONDS * 1000,
      inFlightTtlSeconds: parsed.BLOCK_IN_FLIGHT_TTL_SECONDS,
      gcGraceMs: (parsed.BLOCK_GC_GRACE_SECONDS ?? parsed.BLOCK_IN_FLIGHT_TTL_SECONDS) * 1000,
    },
    usage: { ...usageConfigOf(parsed), ...(parsed.GATEWAY_WORKER_INDEX === undefined ? {} : { worker: parsed.GATEWAY_WORKER_INDEX }) },
    sse: sseConfigOf(parsed),
  };
}

/** The admin token kept in a file (a mounted secret); one trailing newline is not part of it. */
function adminTokenFromFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`ADMIN_TOKEN_FILE: cannot read ${path}: ${(e as Error).message}`]);
  }
  const token = text.replace(/\r?\n$/, '');
  const checked = adminToken.safeParse(token);
  if (!checked.success) throw new ConfigError([`ADMIN_TOKEN_FILE: the token in ${path} ${checked.error.issues[0].message}`]);
  return token;
}
