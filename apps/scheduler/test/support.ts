import { Readable } from 'stream';
import { debugTiming, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { Metastore } from '@ostore/metastore/data-access';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { createLifecycleApplier, createS3Core, LifecycleApplier, LifecycleApplierSettings, Owner, S3Core, UsageEvent } from '@ostore/s3/core';
import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockReclaimer,
  BlockStateRepository,
  BlockStores,
  CassandraBlockManager,
  CassandraBlockStore,
  CompressedBlockStore,
  resolveBlockLifecycle,
} from '@ostore/storage/blocks';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';

/** One lifecycle "day" in the specs (debug timing). */
export const DAY_MS = 1000;
export const alice: Owner = { id: 'alice', displayName: 'Alice' };

/** A fresh migrated keyspace. */
export async function migratedKeyspace(label: string): Promise<string> {
  const keyspace = freshKeyspace(label);
  const admin = createDriverClient(cassandraOptions(keyspace), false);
  await admin.connect();
  try {
    await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  } finally {
    await admin.shutdown();
  }
  return keyspace;
}

export interface Stack {
  keyspace: string;
  client: CassandraClient;
  clock: FakeClock;
  /** The "gateway": writes data the way the S3 API does. */
  core: S3Core;
  blocks: CassandraBlockManager;
  usage: UsageEvent[];
  /** A scheduler's applier over its own session and version clock (same keyspace, same clock). */
  applier(settings?: Partial<LifecycleApplierSettings>): Promise<LifecycleApplier>;
  close(): Promise<void>;
}

/**
 * The S3 core over a fresh keyspace with the Cassandra block store and a compressed cold tier
 * (64 KiB blocks), on a FakeClock that starts at the wall clock (so that write timestamps stay
 * comparable with the driver's) and that specs move by lifecycle days.
 */
export async function stack(label: string, keyspace?: string): Promise<Stack> {
  keyspace ??= await migratedKeyspace(label);
  const clock = new FakeClock(Date.now());
  const sessions: CassandraClient[] = [];
  const usage: UsageEvent[] = [];
  const build = async () => {
    const client = new CassandraClient(cassandraOptions(keyspace));
    await client.connect();
    sessions.push(client);
    const settings = resolveBlockLifecycle({ blockSize: 64 * 1024 });
    const metrics = new MetricsRegistry('test', false);
    const logger = new JsonLogger('test', process.env.LOG_LEVEL ?? 'silent');
    const stores = new BlockStores([
      new CassandraBlockStore(client, { tier: 'standard', chunkSize: 32 * 1024 }),
      new CompressedBlockStore(new CassandraBlockStore(client, { tier: 'cold-raw', chunkSize: 32 * 1024 }), { tier: 'cold' }),
    ]);
    const repo = new BlockStateRepository(client);
    const blocks = new CassandraBlockManager(repo, stores, new BlockReclaimer(repo, stores, settings, metrics, logger), settings, clock, metrics, logger);
    const core = createS3Core({
      metastore: new Metastore(client),
      blocks,
      clock,
      logger,
      usage: { record: (e) => usage.push(e) },
      settings: { minPartSize: 64 * 1024 },
    });
    return { client, core, blocks };
  };
  const first = await build();
  return {
    keyspace,
    clock,
    usage,
    ...first,
    applier: async (settings = {}) =>
      createLifecycleApplier((await build()).core, clock, { timing: debugTiming(DAY_MS), transitionTier: 'cold', ...settings }),
    close: async () => {
      await Promise.all(sessions.map((s) => s.shutdown()));
    },
  };
}

export function body(data: Buffer | string): Readable {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  return Readable.from([buf], { objectMode: false });
}

export async function drain(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Deterministic pseudo-random bytes. */
export function pattern(size: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export async function put(core: S3Core, bucket: string, key: string, data: string | Buffer) {
  return core.objects.put({ bucket, key, owner: alice, body: body(data), meta: { userMeta: {} } });
}

export async function get(core: S3Core, bucket: string, key: string, versionId?: string): Promise<Buffer> {
  const v = await core.objects.head(bucket, key, versionId);
  return drain(await core.objects.openBody(v));
}

/** The S3 error code a promise rejects with. */
export async function s3code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code) return code;
    throw e;
  }
  throw new Error('expected an S3 error, got success');
}

/** Versions of a key as ListObjectVersions shows them: 'M' for markers, else the storage class. */
export async function history(core: S3Core, bucket: string, key: string): Promise<{ versionId: string; kind: string; latest: boolean }[]> {
  const res = await core.objects.listVersions({ bucket, prefix: key, maxKeys: 1000 });
  return res.versions
    .filter((v) => v.key === key)
    .map((v) => ({ versionId: v.versionId, kind: v.isDeleteMarker ? 'M' : v.storageClass, latest: v.isLatest }));
}

/** The references of a block, straight from the block store's table. */
export async function refsOf(client: CassandraClient, blockId: string): Promise<string[]> {
  const rs = await client.execute('SELECT ref FROM block_refs WHERE block_id = ?', [blockId]);
  return rs.rows.map((r) => r['ref'] as string | null).filter((r): r is string => !!r).sort();
}

/** A bucket with a lifecycle configuration stored as the gateway stores it (JSON of the parsed XML). */
export async function bucketWith(
  core: S3Core,
  name: string,
  versioning: 'Unversioned' | 'Enabled' | 'Suspended',
  rulesXml: string,
): Promise<{ bucketId: string; name: string }> {
  const b = await core.buckets.create({ name, owner: alice, location: '', acl: 'private' });
  if (versioning !== 'Unversioned') await core.buckets.setVersioning(name, 'Enabled');
  if (versioning === 'Suspended') await core.buckets.setVersioning(name, 'Suspended');
  const config = parseLifecycleXml(`<LifecycleConfiguration>${rulesXml}</LifecycleConfiguration>`, { relaxTransitionMinimumDays: true });
  await core.buckets.setLifecycle(name, JSON.stringify(config));
  return { bucketId: b.bucketId, name };
}

export const rule = (actions: string, filter = '<Filter/>', id = 'r1') => `<Rule><ID>${id}</ID>${filter}<Status>Enabled</Status>${actions}</Rule>`;
export const expireDays = (d: number) => rule(`<Expiration><Days>${d}</Days></Expiration>`, '<Filter/>', 'expire');
export const noncurrentDays = (d: number, newer?: number) =>
  rule(
    `<NoncurrentVersionExpiration><NoncurrentDays>${d}</NoncurrentDays>${
      newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
    }</NoncurrentVersionExpiration>`,
    '<Filter/>',
    'noncurrent',
  );
export const eodm = rule('<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>', '<Filter/>', 'eodm');
export const toGlacier = (d: number) =>
  rule(`<Transition><Days>${d}</Days><StorageClass>GLACIER</StorageClass></Transition>`, '<Filter/>', 'cold');
export const abortAfter = (d: number) =>
  rule(`<AbortIncompleteMultipartUpload><DaysAfterInitiation>${d}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`, '<Filter/>', 'abort');
