import { randomBytes } from 'crypto';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { LoopResult, timedLoop } from '../lib/sdk-load';

/**
 * The S3 operations the peer benches drive through the AWS SDK, the same code against OStore and
 * MinIO: a 1,000-key listing page of a big directory, DeleteObjects of 1,000 keys,
 * and the single operations whose Cassandra requests are counted.
 */

async function drain(body: unknown): Promise<number> {
  let n = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) n += chunk.length;
  return n;
}

/** PUTs `count` objects of `size` bytes named `<prefix><n>` (n zero-padded), `concurrency` at a time. */
export async function putMany(client: S3Client, bucket: string, prefix: string, count: number, size: number, concurrency = 32): Promise<string[]> {
  const body = randomBytes(size);
  const keys = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(7, '0')}`);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: keys[i], Body: body, ContentLength: size }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return keys;
}

/** ListObjectsV2 pages of `pageSize` keys starting after a random key of the directory. */
export function listLoop(client: S3Client, bucket: string, keys: string[], o: { pageSize: number; concurrency: number; durationMs: number }): Promise<LoopResult> {
  return timedLoop(`ListObjectsV2 ${o.pageSize} keys`, o.concurrency, o.durationMs, async () => {
    const from = Math.floor(Math.random() * Math.max(1, keys.length - o.pageSize));
    const res = await client.send(new ListObjectsV2Command({ Bucket: bucket, StartAfter: keys[from], MaxKeys: o.pageSize }));
    const n = res.KeyCount ?? 0;
    if (n !== Math.min(o.pageSize, keys.length - from - 1)) throw new Error(`listing after ${keys[from]}: ${n} keys`);
    return n;
  });
}

/** DeleteObjects of `batch` keys at a time, one request at a time, until every key is gone (untimed upload first). */
export async function deleteBatches(client: S3Client, bucket: string, keys: string[], batch: number): Promise<{ ms: number[]; errors: number }> {
  const ms: number[] = [];
  let errors = 0;
  for (let i = 0; i < keys.length; i += batch) {
    const chunk = keys.slice(i, i + batch);
    const t0 = performance.now();
    const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }));
    ms.push(performance.now() - t0);
    errors += res.Errors?.length ?? 0;
  }
  return { ms, errors };
}

/** One S3 operation of the Cassandra-request count, run `n` times on keys of its own. */
export type CountedOp = 'PutObject' | 'GetObject' | 'HeadObject' | 'DeleteObject' | 'ListObjectsV2' | 'DeleteObjects';

/** Runs `n` operations of `op` (sequentially: the count is per request, not a throughput). */
export async function runCounted(client: S3Client, bucket: string, op: CountedOp, keys: string[], n: number, size: number): Promise<number> {
  const body = randomBytes(size);
  for (let i = 0; i < n; i++) {
    const Key = keys[i % keys.length];
    switch (op) {
      case 'PutObject':
        await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: body, ContentLength: size }));
        break;
      case 'GetObject':
        await drain((await client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body);
        break;
      case 'HeadObject':
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
        break;
      case 'DeleteObject':
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
        break;
      case 'ListObjectsV2':
        await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: Key.slice(0, Key.lastIndexOf('/') + 1), Delimiter: '/', MaxKeys: 1000 }));
        break;
      case 'DeleteObjects':
        await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key }], Quiet: true } }));
        break;
    }
  }
  return n;
}
