/**
 * The soak's load: a mix of GetObject, PutObject (random sizes) and DeleteObject over a fixed pool
 * of keys, through the AWS SDK v3, either as fast as `concurrency` workers go (the maximum) or
 * paced to a request rate. Every GET body is checked against the MD5 of the last acknowledged PUT
 * of its key, every PUT's ETag against its body's MD5: a wrong answer counts as an error, as does
 * any non-2xx status or client exception (the SDK makes one attempt: nothing is retried away).
 */
import { createHash, randomBytes } from 'crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { quantile } from '../lib/units';

export type OpKind = 'GET' | 'PUT' | 'DELETE';

/** Shares of each operation (percent, summing to 100) and the PUT size range in bytes. */
export interface Mix {
  getPct: number;
  putPct: number;
  deletePct: number;
  minSize: number;
  maxSize: number;
}

export const DEFAULT_MIX: Mix = { getPct: 70, putPct: 25, deletePct: 5, minSize: 4 * 1024, maxSize: 64 * 1024 };

/** The operation for a uniform draw r in [0, 1). */
export function chooseOp(r: number, mix: Mix): OpKind {
  const x = r * 100;
  if (x < mix.getPct) return 'GET';
  if (x < mix.getPct + mix.putPct) return 'PUT';
  return 'DELETE';
}

interface Stored {
  size: number;
  md5: string;
}

/**
 * The keys of the load and what each holds after its last acknowledged write. A key is used by
 * one request at a time (so a GET knows what it must read); a key whose last write failed is
 * `unknown` and is not read until a PUT succeeds on it again.
 */
export class KeyPool {
  private readonly stored: (Stored | undefined)[];
  private readonly busy = new Set<number>();

  constructor(
    readonly size: number,
    private readonly random: () => number = Math.random,
  ) {
    this.stored = new Array<Stored | undefined>(size).fill(undefined);
  }

  /** A free key (holding an object when `mustExist`), marked busy; undefined after a few misses. */
  take(mustExist: boolean): number | undefined {
    for (let attempt = 0; attempt < 16; attempt++) {
      const i = Math.floor(this.random() * this.size);
      if (this.busy.has(i) || (mustExist && !this.stored[i])) continue;
      this.busy.add(i);
      return i;
    }
    return undefined;
  }

  /** Marks key `i` busy; false when it already is. */
  claim(i: number): boolean {
    if (this.busy.has(i)) return false;
    this.busy.add(i);
    return true;
  }

  release(i: number): void {
    this.busy.delete(i);
  }

  get(i: number): Stored | undefined {
    return this.stored[i];
  }

  set(i: number, s: Stored | undefined): void {
    this.stored[i] = s;
  }

  /** Keys that hold an acknowledged object. */
  count(): number {
    return this.stored.filter(Boolean).length;
  }
}

/**
 * Start times `1000 / rate` ms apart. A caller more than `maxBehindMs` behind the schedule (the
 * gateway stalled) restarts it at now: the starts it missed are counted, not sent as a burst.
 */
export class Pacer {
  private next: number;
  /** Starts dropped because the schedule had fallen behind by more than `maxBehindMs`. */
  skipped = 0;

  constructor(
    readonly ratePerSec: number,
    private readonly now: () => number,
    readonly maxBehindMs = 1000,
  ) {
    this.next = now();
  }

  /** Reserves the next start; returns how many ms to wait for it (0: start now). */
  reserve(): number {
    const t = this.now();
    const interval = 1000 / this.ratePerSec;
    if (t - this.next > this.maxBehindMs) {
      this.skipped += Math.floor((t - this.next) / interval);
      this.next = t;
    }
    const wait = Math.max(0, this.next - t);
    this.next += interval;
    return wait;
  }
}

/** Counts of one sampling window (taken and reset by `take()`), and of the whole phase. */
export class LoadCounters {
  requests = 0;
  errors = 0;
  readonly byKind: Record<OpKind, number> = { GET: 0, PUT: 0, DELETE: 0 };
  readonly firstErrors: string[] = [];
  readonly errorsByName = new Map<string, number>();
  private windowRequests = 0;
  private windowErrors = 0;
  private windowLatencies: number[] = [];
  private readonly latencies: number[] = [];

  ok(kind: OpKind, ms: number): void {
    this.requests++;
    this.byKind[kind]++;
    this.windowRequests++;
    this.windowLatencies.push(ms);
    if (this.latencies.length < 2_000_000) this.latencies.push(ms);
  }

  fail(kind: OpKind, what: string): void {
    this.requests++;
    this.errors++;
    this.byKind[kind]++;
    this.windowRequests++;
    this.windowErrors++;
    const name = `${kind} ${what.split(':')[0]}`;
    this.errorsByName.set(name, (this.errorsByName.get(name) ?? 0) + 1);
    if (this.firstErrors.length < 10) this.firstErrors.push(`${new Date().toISOString()} ${kind} ${what}`.slice(0, 400));
  }

  /** The window since the last call: requests, errors, client p99 latency (ms). */
  take(): { requests: number; errors: number; p99Ms: number } {
    const sorted = Float64Array.from(this.windowLatencies).sort();
    const r = { requests: this.windowRequests, errors: this.windowErrors, p99Ms: quantile(sorted, 0.99) };
    this.windowRequests = 0;
    this.windowErrors = 0;
    this.windowLatencies = [];
    return r;
  }

  /** p50 and p99 of every successful request of the phase, ms. */
  latencySummary(): { p50: number; p99: number } {
    const sorted = Float64Array.from(this.latencies).sort();
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  }
}

function errorText(e: unknown): string {
  const err = e as Error & { $metadata?: { httpStatusCode?: number }; Code?: string };
  return `${err.name ?? 'Error'}: ${err.$metadata?.httpStatusCode ?? '-'} ${err.message ?? String(e)}`;
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');

/** The mixed load on one bucket: a key pool, random bodies cut from one random buffer. */
export class MixedLoad {
  readonly pool: KeyPool;
  private readonly noise: Buffer;

  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    readonly mix: Mix,
    keys: number,
    private readonly random: () => number = Math.random,
  ) {
    this.pool = new KeyPool(keys, random);
    this.noise = randomBytes(mix.maxSize * 16);
  }

  key(i: number): string {
    return `soak/${String(i).padStart(6, '0')}`;
  }

  /** PUTs every key once (`concurrency` at a time), so that GETs have objects to read. */
  async fill(concurrency: number, counters: LoadCounters): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < this.pool.size) {
        const i = next++;
        if (this.pool.claim(i)) await this.run('PUT', i, counters);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** One operation of the mix (a GET or DELETE with no stored key to use becomes a PUT). */
  async one(counters: LoadCounters): Promise<void> {
    const kind = chooseOp(this.random(), this.mix);
    const i = this.pool.take(kind !== 'PUT');
    if (i === undefined) {
      const j = this.pool.take(false);
      if (j !== undefined) await this.run('PUT', j, counters);
      return;
    }
    await this.run(kind, i, counters);
  }

  private async run(kind: OpKind, i: number, counters: LoadCounters): Promise<void> {
    const t0 = performance.now();
    try {
      const wrong = await this.send(kind, i);
      if (wrong) counters.fail(kind, `wrong: ${wrong}`);
      else counters.ok(kind, performance.now() - t0);
    } catch (e) {
      // the outcome of a failed write is unknown: the key is not read until a PUT succeeds again
      if (kind !== 'GET') this.pool.set(i, undefined);
      counters.fail(kind, errorText(e));
    } finally {
      this.pool.release(i);
    }
  }

  /** Sends one request; returns what was wrong with a 2xx answer, or undefined. */
  private async send(kind: OpKind, i: number): Promise<string | undefined> {
    const Key = this.key(i);
    if (kind === 'GET') {
      const want = this.pool.get(i)!;
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      const body = await res.Body!.transformToByteArray();
      if (body.length !== want.size || md5(body) !== want.md5) return `${Key}: ${body.length} bytes, md5 ${md5(body)}, expected ${want.size} bytes, md5 ${want.md5}`;
      return undefined;
    }
    if (kind === 'DELETE') {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
      this.pool.set(i, undefined);
      return undefined;
    }
    const size = this.mix.minSize + Math.floor(this.random() * (this.mix.maxSize - this.mix.minSize + 1));
    const offset = Math.floor(this.random() * (this.noise.length - size));
    const body = this.noise.subarray(offset, offset + size);
    const sum = md5(body);
    this.pool.set(i, undefined);
    const res = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: size }));
    this.pool.set(i, { size, md5: sum });
    const etag = res.ETag?.replace(/"/g, '');
    return etag === sum ? undefined : `${Key}: ETag ${res.ETag}, body md5 ${sum}`;
  }
}

/** Runs the mix from `concurrency` workers until `until()` is true; paced when a pacer is given. */
export async function runMix(
  load: MixedLoad,
  counters: LoadCounters,
  o: { concurrency: number; until: () => boolean; pacer?: Pacer; sleep: (ms: number) => Promise<unknown> },
): Promise<void> {
  const worker = async () => {
    while (!o.until()) {
      if (o.pacer) {
        const wait = o.pacer.reserve();
        if (wait > 0) await o.sleep(wait);
        if (o.until()) break;
      }
      await load.one(counters);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
}
