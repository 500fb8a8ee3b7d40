import { Readable } from 'stream';
import type { CassandraClient } from '@ostore/shared/cassandra';
import type { DeleteMarkerFacts, Owner, PutObjectResult, Versioning } from '../api';
import type { S3Core } from '../s3-core';

/** Owners of the specs. */
export const alice: Owner = { id: 'alice', displayName: 'Alice' };
export const bob: Owner = { id: 'bob', displayName: 'Bob' };

/** A body stream of `data`, in chunks of `chunk` bytes. */
export function body(data: Buffer | string, chunk = 16 * 1024): Readable {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  async function* gen() {
    for (let at = 0; at < buf.length; at += chunk) yield buf.subarray(at, Math.min(at + chunk, buf.length));
  }
  return Readable.from(gen(), { objectMode: false });
}

/** Every byte of a stream. */
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

/** A bucket, with versioning set as asked (Suspended: enabled first, as S3 requires). */
export async function newBucket(core: S3Core, name: string, options: { versioning?: Versioning; owner?: Owner } = {}) {
  const b = await core.buckets.create({ name, owner: options.owner ?? alice, location: '', acl: 'private' });
  const versioning = options.versioning ?? 'Unversioned';
  if (versioning !== 'Unversioned') await core.buckets.setVersioning(name, 'Enabled');
  if (versioning === 'Suspended') await core.buckets.setVersioning(name, 'Suspended');
  return b;
}

/** An object PUT as a client would (no metadata, no checksums). */
export async function putObject(core: S3Core, bucket: string, key: string, data: string | Buffer, owner = alice): Promise<PutObjectResult> {
  return core.objects.put({ bucket, key, owner, body: body(data), meta: { userMeta: {} } });
}

/** The body a GET of the key (or version) serves. */
export async function getObject(core: S3Core, bucket: string, key: string, versionId?: string): Promise<Buffer> {
  const v = await core.objects.head(bucket, key, versionId);
  return drain(await core.objects.openBody(v));
}

/** What an S3 error of the core said. */
export interface CoreErrorFacts {
  code: string;
  extra: Record<string, string>;
  deleteMarker?: DeleteMarkerFacts;
}

/** The S3 error a promise rejects with (a test failure when it succeeds or fails otherwise). */
export async function coreError(p: Promise<unknown>): Promise<CoreErrorFacts> {
  try {
    await p;
  } catch (e) {
    const err = e as Partial<CoreErrorFacts>;
    if (err.code) return { code: err.code, extra: err.extra ?? {}, ...(err.deleteMarker ? { deleteMarker: err.deleteMarker } : {}) };
    throw e;
  }
  throw new Error('expected an S3 error, got success');
}

/** The references of a block, straight from the block store's table. */
export async function refsOf(client: CassandraClient, blockId: string): Promise<string[]> {
  const rs = await client.execute('SELECT ref FROM block_refs WHERE block_id = ?', [blockId]);
  return rs.rows.map((r) => r['ref'] as string | null).filter((r): r is string => !!r).sort();
}
