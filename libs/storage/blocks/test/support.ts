import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { migratedSession } from '@ostore/metastore/schema/testing';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockGarbageCollector,
  BlockLifecycleOptions,
  BlockReclaimer,
  BlockStateRepository,
  BlockStore,
  BlockStores,
  CassandraBlockManager,
  LocalFsBlockStore,
  resolveBlockLifecycle,
} from '../src';

/** A fresh keyspace with every migration applied, and a session on it. */
export const migratedKeyspace = migratedSession;

/** One gateway's view of the block storage: manager, GC and their collaborators. */
export function blockStorage(
  cassandra: CassandraClient,
  stores: BlockStore[],
  clock: Clock,
  options: BlockLifecycleOptions,
) {
  const settings = resolveBlockLifecycle(options);
  const metrics = new MetricsRegistry('test', false);
  const logger = new JsonLogger('test', process.env.LOG_LEVEL ?? 'silent');
  const registry = new BlockStores(stores);
  const repo = new BlockStateRepository(cassandra);
  const reclaimer = new BlockReclaimer(repo, registry, settings, metrics, logger);
  const manager = new CassandraBlockManager(repo, registry, reclaimer, settings, clock, metrics, logger);
  const gc = new BlockGarbageCollector(repo, reclaimer, settings, clock, metrics, logger);
  return { settings, metrics, repo, reclaimer, manager, gc, stores: registry };
}

/**
 * The bed of the block reference tests, made in `beforeAll` and removed in `afterAll`: a migrated
 * keyspace, a second session on it (another gateway's), a filesystem block store in a temporary
 * folder; `storage(client)` is one gateway's block storage over them (16 KiB blocks), `refsOf` a
 * block's references as stored.
 */
export function referenceTestBed(label: string) {
  const bed = {} as { cassandra: CassandraClient; other: CassandraClient; root: string; store: BlockStore };
  beforeAll(async () => {
    bed.cassandra = await migratedKeyspace(label);
    bed.other = new CassandraClient(bed.cassandra.options);
    await bed.other.connect();
    bed.root = await fs.mkdtemp(path.join(os.tmpdir(), `ostore-${label}-`));
    bed.store = new LocalFsBlockStore({ tier: 'standard', root: bed.root });
  });
  afterAll(async () => {
    await bed.cassandra?.shutdown();
    await bed.other?.shutdown();
    if (bed.root) await fs.rm(bed.root, { recursive: true, force: true });
  });
  return {
    get cassandra() {
      return bed.cassandra;
    },
    get other() {
      return bed.other;
    },
    get store() {
      return bed.store;
    },
    refsOf: async (blockId: string) =>
      (await bed.cassandra.execute('SELECT ref FROM block_refs WHERE block_id = ?', [blockId])).rows
        .map((r) => r['ref'] as string | null)
        .filter((r): r is string => r !== null),
    storage: (client: CassandraClient) =>
      blockStorage(client, [bed.store], new SystemClock(), { blockSize: 16 * 1024 }),
  };
}

/** Deterministic pseudo-random bytes (so a failure is reproducible). */
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

/** A body of `data` delivered in `chunk`-byte pieces. */
export function bodyOf(data: Buffer, chunk = 16 * 1024): Readable {
  async function* gen() {
    for (let at = 0; at < data.length; at += chunk)
      yield data.subarray(at, Math.min(at + chunk, data.length));
  }
  return Readable.from(gen(), { objectMode: false });
}

export async function drain(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Every regular file under `dir`, relative. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries: import('fs').Dirent[];
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}
