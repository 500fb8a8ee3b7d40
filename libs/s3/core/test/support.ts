import { Readable } from 'stream';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { Metastore } from '@ostore/metastore/data-access';
import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockManager,
  BlockReclaimer,
  BlockStateRepository,
  BlockStores,
  CassandraBlockManager,
  CassandraBlockStore,
  resolveBlockLifecycle,
} from '@ostore/storage/blocks';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';
import { createS3Core, Owner, S3Core, S3CoreSettings, UsageEvent } from '../src';

export const alice: Owner = { id: 'alice', displayName: 'Alice' };
export const bob: Owner = { id: 'bob', displayName: 'Bob' };

export interface Harness {
  core: S3Core;
  ms: Metastore;
  client: CassandraClient;
  blocks: BlockManager;
  usage: UsageEvent[];
  /** A second "gateway" on the same keyspace (own session, own VersionClock). */
  another(): Promise<S3Core>;
  close(): Promise<void>;
}

/** A fresh migrated keyspace with the real Cassandra block manager (small blocks) and the S3 core. */
export async function harness(
  label: string,
  settings: Partial<S3CoreSettings> = {},
  clock: Clock = new SystemClock(),
): Promise<Harness> {
  const keyspace = freshKeyspace(label);
  const admin = createDriverClient(cassandraOptions(keyspace), false);
  await admin.connect();
  try {
    await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  } finally {
    await admin.shutdown();
  }
  const sessions: CassandraClient[] = [];
  const build = async () => {
    const client = new CassandraClient(cassandraOptions(keyspace));
    await client.connect();
    sessions.push(client);
    const lifecycle = resolveBlockLifecycle({ blockSize: 64 * 1024 });
    const metrics = new MetricsRegistry('test', false);
    const logger = new JsonLogger('test', process.env.LOG_LEVEL ?? 'silent');
    const stores = new BlockStores([new CassandraBlockStore(client, { tier: 'standard', chunkSize: 32 * 1024 })]);
    const repo = new BlockStateRepository(client);
    const reclaimer = new BlockReclaimer(repo, stores, lifecycle, metrics, logger);
    const blocks = new CassandraBlockManager(repo, stores, reclaimer, lifecycle, clock, metrics, logger);
    const ms = new Metastore(client);
    const core = createS3Core({
      metastore: ms,
      blocks,
      clock,
      logger,
      usage: { record: (e) => usage.push(e) },
      settings: { minPartSize: 100 * 1024, ...settings },
    });
    return { client, blocks, ms, core };
  };
  const usage: UsageEvent[] = [];
  const first = await build();
  return {
    ...first,
    usage,
    another: async () => (await build()).core,
    close: async () => {
      await Promise.all(sessions.map((s) => s.shutdown()));
    },
  };
}

export function body(data: Buffer | string, chunk = 16 * 1024): Readable {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  async function* gen() {
    for (let at = 0; at < buf.length; at += chunk) yield buf.subarray(at, Math.min(at + chunk, buf.length));
  }
  return Readable.from(gen(), { objectMode: false });
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

/** The references of a block, straight from the block store's table. */
export async function refsOf(client: CassandraClient, blockId: string): Promise<string[]> {
  const rs = await client.execute('SELECT ref FROM block_refs WHERE block_id = ?', [blockId]);
  return rs.rows.map((r) => r['ref'] as string | null).filter((r): r is string => !!r).sort();
}

/** Expects an S3DomainError with this code (and returns it). */
export async function s3code(p: Promise<unknown>): Promise<{ code: string; extra: Record<string, string> }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: string; extra?: Record<string, string> };
    if (err.code) return { code: err.code, extra: err.extra ?? {} };
    throw e;
  }
  throw new Error('expected an S3 error, got success');
}

export async function put(core: S3Core, bucket: string, key: string, data: string | Buffer, owner = alice) {
  return core.objects.put({ bucket, key, owner, body: body(data), meta: { userMeta: {} } });
}

export async function get(core: S3Core, bucket: string, key: string, versionId?: string): Promise<string> {
  const v = await core.objects.head(bucket, key, versionId);
  return (await drain(await core.objects.openBody(v))).toString();
}
