import { promises as fs } from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import { migratedSession } from '@ostore/metastore/schema/testing';
import { CassandraClient } from '@ostore/shared/cassandra';
import type { Clock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockGarbageCollector,
  BlockLifecycleOptions,
  BlockReclaimer,
  BlockStateRepository,
  BlockStore,
  BlockStores,
  CassandraBlockManager,
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
