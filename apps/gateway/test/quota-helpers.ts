import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import type { UsageView } from '../src/cli/bucket-commands';

export const MiB = 2 ** 20;

/** What a bucket's quota view says (GET /admin/buckets/:name/usage). */
export type UsageAnswer = UsageView;

/** One admin API call of a gateway; fails the test on a non-2xx answer. */
export async function admin<T>(gw: GatewayUnderTest, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${gw.adminUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${gw.adminToken}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Sets a bucket's quota through the admin API (waits out the gateways' bucket cache, then recounts). */
export const setQuota = (gw: GatewayUnderTest, bucket: string, limits: { maxBytes?: number | null; maxObjects?: number | null }) =>
  admin<UsageAnswer>(gw, 'PUT', `/admin/buckets/${bucket}/quota`, limits);

export const usageOf = (gw: GatewayUnderTest, bucket: string) => admin<UsageAnswer>(gw, 'GET', `/admin/buckets/${bucket}/usage`);

/**
 * An exact count, through S3 listings, of what the bucket holds: every version, plus the parts of
 * the given uploads still in progress. An upload that is gone (NoSuchUpload) holds no parts: its
 * completion or abort was in flight at a gateway's kill and landed without an answer, so a
 * completed one is already among the versions listed before.
 */
export async function heldBytes(s3: S3Client, Bucket: string, uploads: { Key: string; UploadId: string }[] = []): Promise<{ bytes: number; objects: number }> {
  let bytes = 0;
  let objects = 0;
  let KeyMarker: string | undefined;
  let VersionIdMarker: string | undefined;
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket, KeyMarker, VersionIdMarker }));
    for (const v of page.Versions ?? []) {
      bytes += v.Size ?? 0;
      objects++;
    }
    if (!page.IsTruncated) break;
    KeyMarker = page.NextKeyMarker;
    VersionIdMarker = page.NextVersionIdMarker;
  }
  for (const u of uploads) {
    const parts = await s3.send(new ListPartsCommand({ Bucket, ...u })).catch((e: Error) => {
      if (e.name === 'NoSuchUpload') return undefined;
      throw e;
    });
    for (const p of parts?.Parts ?? []) bytes += p.Size ?? 0;
  }
  return { bytes, objects };
}

/** The sum of the samples of metric `name` whose labels include `labels`, from a gateway's /metrics. */
export async function metricWith(gw: GatewayUnderTest, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${gw.managementUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** Resolves with 'ok', or with the S3 error code the request failed with. */
export async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof S3ServiceException) return `${e.$metadata.httpStatusCode} ${e.name}`;
    throw e;
  }
}

/**
 * `uploaders` concurrent clients, each PUTting `attempts` new objects of sizes from `sizes` (round
 * robin over the clients given), until done. Returns the sizes accepted and how each attempt ended.
 */
export async function uploadConcurrently(
  clients: S3Client[],
  Bucket: string,
  options: { uploaders: number; attempts: number; sizes: number[]; prefix: string },
): Promise<{ accepted: { key: string; size: number }[]; outcomes: Map<string, number> }> {
  const accepted: { key: string; size: number }[] = [];
  const outcomes = new Map<string, number>();
  await Promise.all(
    Array.from({ length: options.uploaders }, async (_, u) => {
      const s3 = clients[u % clients.length];
      for (let i = 0; i < options.attempts; i++) {
        const size = options.sizes[(u + i) % options.sizes.length];
        const key = `${options.prefix}/u${u}/o${i}`;
        const result = await outcome(s3.send(new PutObjectCommand({ Bucket, Key: key, Body: Buffer.alloc(size, u) })));
        outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
        if (result === 'ok') accepted.push({ key, size });
      }
    }),
  );
  return { accepted, outcomes };
}

/** One write a mixed load got an answer for: which gateway (client index), what it added, when the answer came (ms, test clock). */
export interface LoadWrite {
  key: string;
  size: number;
  gateway: number;
  doneAtMs: number;
}

/** Resolves like `outcome`, but a failure without an S3 answer (a killed gateway) is 'lost'. */
async function settled(p: Promise<unknown>): Promise<string> {
  try {
    return await outcome(p);
  } catch {
    return 'lost';
  }
}

/**
 * `uploaders` concurrent clients (round robin over `clients`), each making `attempts` writes that
 * rotate through a single PutObject, a one-part multipart upload (UploadPart admits the bytes,
 * CompleteMultipartUpload adds the object) and a CopyObject of one of its own accepted objects.
 * An uploader whose gateway stops answering ('lost') stops. Returns the accepted writes, how each
 * attempt ended, and the uploads left open (their parts count as stored bytes).
 */
export async function mixedLoad(
  clients: S3Client[],
  Bucket: string,
  options: { uploaders: number; attempts: number; sizes: number[]; prefix: string; now: () => number; onAccepted?: (w: LoadWrite) => void },
): Promise<{ accepted: LoadWrite[]; outcomes: Map<string, number>; open: { Key: string; UploadId: string }[] }> {
  const accepted: LoadWrite[] = [];
  const outcomes = new Map<string, number>();
  const open: { Key: string; UploadId: string }[] = [];
  const count = (r: string) => outcomes.set(r, (outcomes.get(r) ?? 0) + 1);
  await Promise.all(
    Array.from({ length: options.uploaders }, async (_, u) => {
      const gateway = u % clients.length;
      const s3 = clients[gateway];
      const mine: LoadWrite[] = [];
      for (let i = 0; i < options.attempts; i++) {
        const size = options.sizes[(u + i) % options.sizes.length];
        const Key = `${options.prefix}/u${u}/o${i}`;
        const kind = i % 3;
        let result: string;
        let added = size;
        if (kind === 1) {
          const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key })).catch(() => undefined);
          if (!upload?.UploadId) break;
          const ref = { Key, UploadId: upload.UploadId };
          open.push(ref);
          let ETag: string | undefined;
          result = await settled(s3.send(new UploadPartCommand({ Bucket, ...ref, PartNumber: 1, Body: Buffer.alloc(size, u) })).then((r) => (ETag = r.ETag)));
          if (result === 'ok') result = await settled(s3.send(new CompleteMultipartUploadCommand({ Bucket, ...ref, MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] } })));
          else if (result !== 'lost') result = (await settled(s3.send(new AbortMultipartUploadCommand({ Bucket, ...ref })))) === 'ok' ? result : 'lost';
          if (result !== 'lost') open.splice(open.indexOf(ref), 1);
        } else if (kind === 2 && mine.length > 0) {
          const source = mine[i % mine.length];
          added = source.size;
          result = await settled(s3.send(new CopyObjectCommand({ Bucket, Key, CopySource: `${Bucket}/${source.key}` })));
        } else {
          result = await settled(s3.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(size, u) })));
        }
        count(result);
        if (result === 'lost') break;
        if (result !== 'ok') continue;
        const write = { key: Key, size: added, gateway, doneAtMs: options.now() };
        mine.push(write);
        accepted.push(write);
        options.onAccepted?.(write);
      }
    }),
  );
  return { accepted, outcomes, open };
}

/** The most bytes the writes matching `which` add within any window of `windowMs` (by answer time). */
export function mostWithin(writes: LoadWrite[], windowMs: number, which: (w: LoadWrite) => boolean): number {
  const ws = writes.filter(which).sort((a, b) => a.doneAtMs - b.doneAtMs);
  let most = 0;
  let sum = 0;
  let start = 0;
  for (const w of ws) {
    sum += w.size;
    while (w.doneAtMs - ws[start].doneAtMs > windowMs) sum -= ws[start++].size;
    most = Math.max(most, sum);
  }
  return most;
}

/**
 * Three real gateway processes over one keyspace, one block store and one bootstrap user, started
 * one after the other (three swc-compiled starts at once overload a 2-core machine); pushed onto
 * `into` as they come up so the caller's afterAll stops any that started.
 */
export async function startThreeGateways(label: string, env: Record<string, string>, into: GatewayUnderTest[]): Promise<void> {
  const first = await startGateway(label, env);
  into.push(first);
  const shared = {
    ...env,
    CASSANDRA_KEYSPACE: first.keyspace,
    BLOCK_STORE_DIR: first.blockDir,
    S3_BOOTSTRAP_ACCESS_KEY_ID: first.credentials.accessKeyId,
    S3_BOOTSTRAP_SECRET_ACCESS_KEY: first.credentials.secretAccessKey,
  };
  into.push(await startGateway(`${label}b`, shared));
  into.push(await startGateway(`${label}c`, shared));
}
