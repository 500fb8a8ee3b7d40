import { randomBytes } from 'crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

/** One bucket of the workload. */
export interface WorkBucket {
  name: string;
  versioned: boolean;
}

/** Operations done, by kind. */
export type OpCounts = Record<string, number>;

/** One step of a client as it saw it: when it sent the first request and got the last answer (ms), and the body bytes it sent. */
export interface Span {
  bucket: string;
  kind: string;
  startMs: number;
  endMs: number;
  bytes: number;
}

const KEYS = 6;
/** Bodies are 1,000 to MAX_BODY bytes. */
export const MAX_BODY = 31_000;
/** A copy's source or a version may have gone meanwhile (another op, lifecycle): not a failure. */
const GONE = new Set(['NoSuchKey', 'NoSuchVersion', 'NoSuchUpload', 'InvalidObjectState']);

/**
 * Concurrent S3 clients (AWS SDK v3), each on its own keys of every bucket: puts (new keys and
 * overwrites, under `keep/` and under `exp/` which the lifecycle rules expire), copies (within and
 * across buckets), deletes (of the current version, and of a given version in versioned buckets),
 * multipart uploads completed (with a part uploaded twice), aborted, or left for the lifecycle's
 * AbortIncompleteMultipartUpload. `pause()` returns once no operation is in flight.
 */
export class Workload {
  readonly counts: OpCounts = {};
  /** Every completed step, in completion order. */
  readonly spans: Span[] = [];
  private running = true;
  private gate?: Promise<void>;
  private open?: () => void;
  private inFlight = 0;
  private readonly idle = new Set<() => void>();
  private readonly versions = new Map<string, string[]>();
  private workers: Promise<void>[] = [];
  private failure?: Error;

  constructor(
    private readonly clients: S3Client[],
    private readonly buckets: WorkBucket[],
  ) {}

  start(): void {
    this.workers = this.clients.map((c, i) => this.worker(c, i));
  }

  get total(): number {
    return Object.values(this.counts).reduce((n, x) => n + x, 0);
  }

  /** Resolves once `n` more operations are done. */
  async untilMore(n: number, timeoutMs = 90_000): Promise<void> {
    const target = this.total + n;
    const deadline = Date.now() + timeoutMs;
    while (this.total < target) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline)
        throw new Error(`only ${this.total} of ${target} operations within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async pause(): Promise<void> {
    this.gate = new Promise((r) => (this.open = r));
    if (this.inFlight > 0) await new Promise<void>((r) => this.idle.add(r));
    if (this.failure) throw this.failure;
  }

  resume(): void {
    this.gate = undefined;
    this.open?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.resume();
    await Promise.all(this.workers);
    if (this.failure) throw this.failure;
  }

  private async worker(s3: S3Client, w: number): Promise<void> {
    let n = 0;
    while (this.running && !this.failure) {
      if (this.gate) await this.gate;
      if (!this.running) break;
      this.inFlight++;
      const startMs = Date.now();
      try {
        const sent = { bucket: '', bytes: 0 };
        const kind = await this.step(s3, w, n++, sent);
        this.counts[kind] = (this.counts[kind] ?? 0) + 1;
        this.spans.push({ ...sent, kind, startMs, endMs: Date.now() });
      } catch (e) {
        this.failure ??= new Error(`client ${w}: ${(e as Error).name}: ${(e as Error).message}`);
      } finally {
        if (--this.inFlight === 0) {
          this.idle.forEach((r) => r());
          this.idle.clear();
        }
      }
    }
  }

  private async step(s3: S3Client, w: number, n: number, sent: { bucket: string; bytes: number }): Promise<string> {
    const b = this.buckets[Math.floor(Math.random() * this.buckets.length)];
    sent.bucket = b.name;
    const key = (dir: string) => `${dir}/c${w}-k${Math.floor(Math.random() * KEYS)}`;
    const body = () => {
      const bytes = randomBytes(1000 + Math.floor(Math.random() * (MAX_BODY - 1000)));
      sent.bytes += bytes.length;
      return bytes;
    };
    const r = Math.random();
    try {
      if (r < 0.3) {
        const k = key(Math.random() < 0.5 ? 'keep' : 'exp');
        const res = await s3.send(new PutObjectCommand({ Bucket: b.name, Key: k, Body: body() }));
        if (res.VersionId && b.versioned)
          this.versions.set(`${b.name}/${k}`, [
            ...(this.versions.get(`${b.name}/${k}`) ?? []),
            res.VersionId,
          ]);
        return 'put';
      }
      if (r < 0.45) {
        const to = this.buckets[Math.floor(Math.random() * this.buckets.length)];
        sent.bucket = to.name;
        await s3.send(
          new CopyObjectCommand({
            Bucket: to.name,
            Key: key('copy'),
            CopySource: `${b.name}/${key('keep')}`,
          }),
        );
        return 'copy';
      }
      if (r < 0.6) {
        const k = key('keep');
        const known = this.versions.get(`${b.name}/${k}`) ?? [];
        const versionId = b.versioned && known.length && Math.random() < 0.5 ? known.shift() : undefined;
        await s3.send(new DeleteObjectCommand({ Bucket: b.name, Key: k, VersionId: versionId }));
        return versionId ? 'delete-version' : 'delete';
      }
      const k = key('mp');
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: b.name, Key: k }));
      const part = (p: number) =>
        s3.send(new UploadPartCommand({ Bucket: b.name, Key: k, UploadId, PartNumber: p, Body: body() }));
      if (r < 0.8) {
        await part(1);
        const again = await part(1); // the same part uploaded twice: only the second holds data
        await s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: b.name,
            Key: k,
            UploadId,
            MultipartUpload: { Parts: [{ PartNumber: 1, ETag: again.ETag }] },
          }),
        );
        return 'multipart-complete';
      }
      await part(1);
      await part(2);
      // every few uploads is left to the lifecycle rule (AbortIncompleteMultipartUpload)
      if (n % 4 === 3) return 'multipart-left';
      await s3.send(new AbortMultipartUploadCommand({ Bucket: b.name, Key: k, UploadId }));
      return 'multipart-abort';
    } catch (e) {
      if (e instanceof S3ServiceException && GONE.has(e.name)) return 'gone';
      throw e;
    }
  }
}
