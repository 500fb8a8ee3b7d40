import { createHash, randomBytes } from 'crypto';
import { Agent } from 'http';
import { Readable, Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { quantile } from './units';

/**
 * The AWS SDK v3 load generator: the fallback when warp is missing, the second opinion next to
 * it, and the client of the 2 GiB memory test. Bodies go as streams, so the SDK signs them
 * UNSIGNED-PAYLOAD over plain HTTP and hashes nothing; flexible checksums are off
 * (WHEN_REQUIRED), so what is measured is the gateway, not CRC32 in the client.
 */

export interface SdkTarget {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * `idleSocketMs`: the agent's socket timeout, which also closes idle keep-alive sockets (Node lowers
 * it further to the server's `Keep-Alive: timeout=N` hint minus 1 s, but only when it is set).
 */
export function sdkClient(t: SdkTarget, maxSockets: number, requestTimeoutMs = 120_000, idleSocketMs?: number): S3Client {
  return new S3Client({
    endpoint: t.endpoint,
    region: t.region,
    credentials: { accessKeyId: t.accessKeyId, secretAccessKey: t.secretAccessKey },
    forcePathStyle: true,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent: new Agent({ keepAlive: true, maxSockets, ...(idleSocketMs ? { timeout: idleSocketMs } : {}) }),
      connectionTimeout: 10_000,
      requestTimeout: requestTimeoutMs,
    }),
  });
}

/** Creates the bucket; an existing bucket of ours is fine. */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (e) {
    const name = (e as Error).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
  }
}

export interface LoopResult {
  label: string;
  ops: number;
  errors: number;
  bytes: number;
  elapsedMs: number;
  objPerSec: number;
  mibPerSec: number;
  latencyMs: { avg: number; p50: number; p90: number; p99: number; fastest: number; slowest: number };
  firstErrors: string[];
  /** Monotonic window of the measured phase, in microseconds (for CPU-profile slicing). */
  monoStartUs: number;
  monoEndUs: number;
}

/**
 * Runs `op` from `concurrency` workers until `durationMs` has passed (operations started before
 * the deadline finish and count). Latency is measured per operation, request to last body byte.
 */
export async function timedLoop(
  label: string,
  concurrency: number,
  durationMs: number,
  op: (worker: number, seq: number) => Promise<number>,
  maxOps = Number.MAX_SAFE_INTEGER,
): Promise<LoopResult> {
  const latencies: number[] = [];
  const firstErrors: string[] = [];
  let errors = 0;
  let bytes = 0;
  let started = 0;
  const monoStartUs = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  const worker = async (w: number) => {
    for (let seq = 0; performance.now() < deadline && started < maxOps; seq++) {
      started++;
      const s = performance.now();
      try {
        bytes += await op(w, seq);
        latencies.push(performance.now() - s);
      } catch (e) {
        errors++;
        if (firstErrors.length < 5) firstErrors.push(`${(e as Error).name}: ${(e as Error).message}`.slice(0, 300));
        if (errors > 1000 && errors > latencies.length) break; // everything fails: stop early
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsedMs = performance.now() - t0;
  const monoEndUs = Number(process.hrtime.bigint() / 1000n);
  const sorted = Float64Array.from(latencies).sort();
  const sum = latencies.reduce((a, b) => a + b, 0);
  return {
    label,
    ops: latencies.length,
    errors,
    bytes,
    elapsedMs,
    objPerSec: latencies.length / (elapsedMs / 1000),
    mibPerSec: bytes / 1024 ** 2 / (elapsedMs / 1000),
    latencyMs: {
      avg: latencies.length ? sum / latencies.length : NaN,
      p50: quantile(sorted, 0.5),
      p90: quantile(sorted, 0.9),
      p99: quantile(sorted, 0.99),
      fastest: sorted[0] ?? NaN,
      slowest: sorted[sorted.length - 1] ?? NaN,
    },
    firstErrors,
    monoStartUs,
    monoEndUs,
  };
}

/** Reads a response body to its end; returns the byte count. */
async function consume(body: unknown): Promise<number> {
  let n = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) n += chunk.length;
  return n;
}

/** PUT phase then GET phase of same-sized objects (the SDK twin of `warp put` + `warp get`). */
export async function sdkPutGet(
  client: S3Client,
  bucket: string,
  o: { objectSize: number; concurrency: number; durationMs: number; keyPrefix: string; onPhase?: (phase: 'put' | 'get') => void | Promise<void> },
): Promise<{ put: LoopResult; get: LoopResult }> {
  await ensureBucket(client, bucket);
  const bodies = Array.from({ length: o.concurrency }, () => randomBytes(o.objectSize));
  const written: string[] = [];
  await o.onPhase?.('put');
  const put = await timedLoop(`PUT ${o.objectSize} B × ${o.concurrency} (aws-sdk)`, o.concurrency, o.durationMs, async (w, seq) => {
    const key = `${o.keyPrefix}/w${w}/${seq}`;
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Readable.from([bodies[w]]), ContentLength: o.objectSize }));
    written.push(key);
    return o.objectSize;
  });
  if (written.length === 0) throw new Error(`no PUT succeeded: ${put.firstErrors.join('; ')}`);
  await o.onPhase?.('get');
  const get = await timedLoop(`GET ${o.objectSize} B × ${o.concurrency} (aws-sdk)`, o.concurrency, o.durationMs, async () => {
    const key = written[Math.floor(Math.random() * written.length)];
    const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const n = await consume(res.Body);
    if (n !== o.objectSize) throw new Error(`GET ${key}: ${n} bytes, expected ${o.objectSize}`);
    return n;
  });
  return { put, get };
}

/**
 * A deterministic pseudo-random body of `size` bytes, in 1 MiB chunks (a random 1 MiB block with
 * the chunk number stamped into its first 8 bytes), hashed (SHA-256) as it is read.
 */
export class GeneratedBody extends Readable {
  private sent = 0;
  private index = 0;
  private readonly hash = createHash('sha256');
  private static readonly BLOCK = randomBytes(1024 * 1024);

  constructor(readonly size: number) {
    super({ highWaterMark: 1024 * 1024 });
  }

  override _read(): void {
    if (this.sent >= this.size) {
      this.push(null);
      return;
    }
    const n = Math.min(GeneratedBody.BLOCK.length, this.size - this.sent);
    const chunk = Buffer.from(GeneratedBody.BLOCK.subarray(0, n));
    if (n >= 8) chunk.writeBigUInt64BE(BigInt(this.index), 0);
    this.index++;
    this.sent += n;
    this.hash.update(chunk);
    this.push(chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

export interface TransferResult {
  bytes: number;
  ms: number;
  mibPerSec: number;
  sha256: string;
  mode: string;
  monoStartUs: number;
  monoEndUs: number;
}

/**
 * Streams a generated body of `size` bytes up: with lib-storage's Upload (multipart, `partSize`
 * × `queueSize` in flight), or as one streamed PutObject when `mode` is `single`.
 */
export async function uploadGenerated(
  client: S3Client,
  bucket: string,
  key: string,
  size: number,
  o: { mode: 'multipart' | 'single'; partSize: number; queueSize: number },
): Promise<TransferResult> {
  const body = new GeneratedBody(size);
  const monoStartUs = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  if (o.mode === 'multipart') {
    const upload = new Upload({ client, params: { Bucket: bucket, Key: key, Body: body }, partSize: o.partSize, queueSize: o.queueSize, leavePartsOnError: false });
    await upload.done();
  } else {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: size }));
  }
  const ms = performance.now() - t0;
  return {
    bytes: size,
    ms,
    mibPerSec: size / 1024 ** 2 / (ms / 1000),
    sha256: body.digest(),
    mode: o.mode === 'multipart' ? `lib-storage Upload, multipart, ${o.partSize / 1024 ** 2} MiB parts × ${o.queueSize} in flight` : 'one streamed PutObject',
    monoStartUs,
    monoEndUs: Number(process.hrtime.bigint() / 1000n),
  };
}

/** Streams an object down through SHA-256, without keeping it. */
export async function downloadHashed(client: S3Client, bucket: string, key: string): Promise<TransferResult> {
  const monoStartUs = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    res.Body as Readable,
    new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        bytes += chunk.length;
        cb();
      },
    }),
  );
  const ms = performance.now() - t0;
  return { bytes, ms, mibPerSec: bytes / 1024 ** 2 / (ms / 1000), sha256: hash.digest('hex'), mode: 'one streamed GetObject', monoStartUs, monoEndUs: Number(process.hrtime.bigint() / 1000n) };
}

/** CreateBucket, PutObject, GetObject (content compared), DeleteObject: does the gateway serve S3 yet? */
export async function smokeTest(client: S3Client, bucket: string): Promise<{ ok: boolean; steps: string[] }> {
  const steps: string[] = [];
  const body = randomBytes(4096);
  const step = async (name: string, fn: () => Promise<string | void>) => {
    const t = performance.now();
    try {
      const extra = await fn();
      steps.push(`ok   ${name} (${(performance.now() - t).toFixed(0)} ms)${extra ? ` ${extra}` : ''}`);
      return true;
    } catch (e) {
      const err = e as Error & { $metadata?: { httpStatusCode?: number } };
      steps.push(`FAIL ${name}: ${err.name} ${err.$metadata?.httpStatusCode ?? ''} ${err.message}`.slice(0, 400));
      return false;
    }
  };
  const ok =
    (await step('CreateBucket', () => ensureBucket(client, bucket))) &&
    (await step('PutObject 4 KiB', async () => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'smoke/object', Body: body }));
    })) &&
    (await step('GetObject 4 KiB', async () => {
      const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'smoke/object' }));
      const got = Buffer.from(await res.Body!.transformToByteArray());
      if (!got.equals(body)) throw new Error(`content differs (${got.length} bytes)`);
    })) &&
    (await step('PutObject 4 KiB streamed (UNSIGNED-PAYLOAD)', async () => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'smoke/streamed', Body: Readable.from([body]), ContentLength: body.length }));
    })) &&
    (await step('DeleteObject', async () => {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'smoke/object' }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'smoke/streamed' }));
    }));
  return { ok, steps };
}
