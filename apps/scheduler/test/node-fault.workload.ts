import { createHash, randomBytes } from 'crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';

/**
 * The mixed load of the Cassandra node fault drill and the model that judges every answer.
 *
 * Each worker owns its keys (`load/w<i>/k<n>`), so the operations on one key are sequential and
 * the allowed states of a key follow from them: an acknowledged PUT makes the key hold exactly its
 * body, an acknowledged DELETE makes it absent; a PUT or DELETE that failed may or may not have
 * been applied (a write that failed at LOCAL_QUORUM may have reached one replica and surface
 * later), so it adds its outcome to the allowed states without removing any. A GET must return
 * one of the allowed states (it never narrows them, for the same reason). The workers also PUT
 * unique keys under `exp/`, the prefix of the lifecycle rule, which the drill never deletes.
 */

const ABSENT = 'absent';

/** How the answers of the load were judged. */
export interface LoadCounts {
  /** Operations answered with success, by kind. */
  acknowledged: Record<string, number>;
  /** Operations that failed with an S3 retryable error (500 InternalError, 503 SlowDown/ServiceUnavailable, connection reset), by code. */
  retryable: Record<string, number>;
  /** Any other failure (4xx, non-retryable 5xx, a timeout/hang): must stay empty. */
  unexpected: Record<string, number>;
  /** A GET answered 404 for a key that must exist. */
  wrong404: number;
  /** A GET returned bytes that are none of the allowed states of the key (stale, resurrected or corrupt). */
  wrongBody: number;
}

/** What a GET found: a body's SHA-256, or absent (404 NoSuchKey). */
type Observed = string;

interface KeyModel {
  /** Allowed states: body hashes and/or ABSENT. */
  states: Set<string>;
  /** Bodies ever sent for the key (hash → seq), to tell a stale body from a corrupt one. */
  sent: Map<string, number>;
}

/** The classification of a failed request. */
export function classify(e: unknown): { retryable: boolean; code: string } {
  const err = e as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; message?: string };
  if (e instanceof S3ServiceException) {
    const status = err.$metadata?.httpStatusCode;
    const code = `${status} ${err.name}`;
    const retryable = (status === 500 && err.name === 'InternalError') || (status === 503 && (err.name === 'SlowDown' || err.name === 'ServiceUnavailable'));
    return { retryable, code };
  }
  const code = err.code ?? err.name ?? 'Error';
  return { retryable: ['ECONNRESET', 'EPIPE', 'ECONNREFUSED'].includes(code) || /socket hang up/.test(err.message ?? ''), code };
}

/** A body whose content names its key and sequence number, and is otherwise random. */
function body(key: string, seq: number): Buffer {
  const size = seq % 8 === 0 ? 64 * 1024 + (seq % 3000) : 200 + ((seq * 7919) % 8000);
  return Buffer.concat([Buffer.from(`${key}#${seq}\n`), randomBytes(size)]);
}

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The mixed PUT/GET/DELETE load of the drill (see the file's comment). */
export class NodeFaultLoad {
  readonly counts: LoadCounts = { acknowledged: {}, retryable: {}, unexpected: {}, wrong404: 0, wrongBody: 0 };
  /** The first few wrong answers, for the failure message. */
  readonly wrong: string[] = [];
  readonly keys = new Map<string, KeyModel>();
  /** Keys under the rule's prefix that a PUT was sent for (acknowledged or not). */
  readonly expKeys = new Set<string>();
  /** Those of them whose PUT was acknowledged: each must be expired by the lifecycle. */
  readonly expAcked = new Set<string>();
  private running = false;
  private done: Promise<void>[] = [];
  private seq = 0;
  private ops = 0;

  constructor(
    private readonly clients: S3Client[],
    private readonly bucket: string,
  ) {}

  get operations(): number {
    return this.ops;
  }

  start(): void {
    this.running = true;
    this.done = this.clients.map((c, w) => this.worker(c, w));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.done);
  }

  /** Resolves once `n` more operations have been answered (or the load stopped). */
  async untilMore(n: number, timeoutMs: number): Promise<void> {
    const target = this.ops + n;
    const deadline = Date.now() + timeoutMs;
    while (this.ops < target) {
      if (Date.now() > deadline) throw new Error(`the load did ${this.ops - target + n} of ${n} operations in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async worker(client: S3Client, w: number): Promise<void> {
    const mine: string[] = [];
    let n = 0;
    while (this.running) {
      const dice = Math.random();
      if (mine.length < 3 || dice < 0.3) {
        const key = `load/w${w}/k${n++}`;
        mine.push(key);
        await this.put(client, key, 'put');
      } else if (dice < 0.45) await this.put(client, pick(mine), 'overwrite');
      else if (dice < 0.75) await this.get(client, pick(mine));
      else if (dice < 0.87) await this.del(client, pick(mine));
      else {
        const key = `exp/w${w}/e${n++}`;
        this.expKeys.add(key);
        if (await this.send('put-exp', () => client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body(key, this.seq++) }))))
          this.expAcked.add(key);
      }
    }
  }

  private model(key: string): KeyModel {
    let m = this.keys.get(key);
    if (!m) this.keys.set(key, (m = { states: new Set([ABSENT]), sent: new Map() }));
    return m;
  }

  /** Runs one request; true when acknowledged, and counts the failure otherwise. */
  private async send(kind: string, request: () => Promise<unknown>): Promise<boolean> {
    try {
      await request();
      bump(this.counts.acknowledged, kind);
      return true;
    } catch (e) {
      const c = classify(e);
      bump(c.retryable ? this.counts.retryable : this.counts.unexpected, `${kind}: ${c.code}`);
      return false;
    } finally {
      this.ops++;
    }
  }

  private async put(client: S3Client, key: string, kind: string): Promise<void> {
    const seq = this.seq++;
    const b = body(key, seq);
    const h = sha(b);
    const m = this.model(key);
    m.sent.set(h, seq);
    const ok = await this.send(kind, () => client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: b })));
    if (ok) m.states = new Set([h]);
    else m.states.add(h);
  }

  private async del(client: S3Client, key: string): Promise<void> {
    const m = this.model(key);
    const ok = await this.send('delete', () => client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
    if (ok) m.states = new Set([ABSENT]);
    else m.states.add(ABSENT);
  }

  private async get(client: S3Client, key: string): Promise<void> {
    let seen: Observed | undefined;
    await this.send('get', async () => {
      seen = await observe(client, this.bucket, key);
    });
    if (seen !== undefined) this.judge(key, seen, 'during the load');
  }

  /** Compares one observation with the key's allowed states; counts and remembers a wrong one. */
  judge(key: string, seen: Observed, when: string): boolean {
    const m = this.model(key);
    if (m.states.has(seen)) return true;
    if (seen === ABSENT) this.counts.wrong404++;
    else this.counts.wrongBody++;
    const what = seen === ABSENT ? '404' : m.sent.has(seen) ? `the body of seq ${m.sent.get(seen)}` : 'bytes never sent for it';
    if (this.wrong.length < 20) this.wrong.push(`${when}: GET ${key} returned ${what}; allowed ${[...m.states].map((s) => (s === ABSENT ? ABSENT : `seq ${m.sent.get(s)}`)).join(' | ')}`);
    return false;
  }
}

/** GET of one key: its body's SHA-256, or ABSENT on 404 NoSuchKey; other errors are thrown. */
export async function observe(client: S3Client, bucket: string, key: string): Promise<Observed> {
  try {
    const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return sha(await res.Body!.transformToByteArray());
  } catch (e) {
    if (e instanceof S3ServiceException && e.$metadata?.httpStatusCode === 404 && e.name === 'NoSuchKey') return ABSENT;
    throw e;
  }
}

export const isAbsent = (o: Observed) => o === ABSENT;

function pick<T>(xs: T[]): T {
  return xs[Math.floor(Math.random() * xs.length)];
}

function bump(counts: Record<string, number>, k: string): void {
  counts[k] = (counts[k] ?? 0) + 1;
}
