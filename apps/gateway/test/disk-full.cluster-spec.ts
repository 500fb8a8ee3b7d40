/*
 * Issue 13's disk-full drill: the gateway's filesystem block store on a tmpfs of its own, filled
 * through the S3 API (SDK v3, single PUTs and multipart) until writes fail. Run by
 * `npm run test:cluster` (jest.cluster.config.js), not by `npm test`: it mounts a filesystem, so
 * it needs root (or CAP_SYS_ADMIN) and fails saying so otherwise. Figures: docs/drills/kafka-and-disk.md.
 */
import { execFileSync } from 'child_process';
import { createHash, randomBytes } from 'crypto';
import { existsSync, mkdtempSync, readdirSync, rmdirSync, statSync } from 'fs';
import { statfs } from 'fs/promises';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';
import { bodyBytes } from './s3-test-helpers';

const MiB = 1024 * 1024;
const DISK_MIB = 64;
const BLOCK = MiB;
const SINGLE = 3 * MiB;
const PART = 5 * MiB;
const LAST_PART = MiB;
const BUCKET = 'disk-full';

/** What one request ended as: acknowledged, or failed with an S3 error (or something else: unclean). */
type Outcome = { ok: true; etag?: string } | { ok: false; status?: number; code: string; message: string };

async function attempt(p: Promise<{ ETag?: string }>): Promise<Outcome> {
  try {
    const r = await p;
    return { ok: true, etag: r.ETag };
  } catch (e) {
    if (e instanceof S3ServiceException) return { ok: false, status: e.$metadata.httpStatusCode, code: e.name, message: e.message };
    const err = e as NodeJS.ErrnoException;
    return { ok: false, code: `not an S3 error: ${err.code ?? err.name}`, message: err.message };
  }
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const blocksOf = (size: number) => Math.ceil(size / BLOCK);

/** Every file under `dir` (relative paths). */
function filesUnder(dir: string, rel = ''): string[] {
  if (!existsSync(join(dir, rel))) return [];
  return readdirSync(join(dir, rel)).flatMap((e) =>
    statSync(join(dir, rel, e)).isDirectory() ? filesUnder(dir, join(rel, e)) : [join(rel, e)],
  );
}

async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** Mounts a tmpfs of `mib` MiB on a fresh directory; fails with the reason when mounting is refused. */
function mountTmpfs(mib: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'ostore-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmdirSync(dir);
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(
      `the disk-full drill mounts a ${mib} MiB tmpfs for the gateway's block store and needs root or CAP_SYS_ADMIN for it; ` +
        `\`mount -t tmpfs\` was refused: ${err.stderr?.toString().trim() || err.message}`,
    );
  }
  return dir;
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmdirSync(dir);
}

interface Upload {
  key: string;
  uploadId: string;
  /** Acknowledged parts: number → bytes and ETag. */
  parts: Map<number, { body: Buffer; etag: string }>;
}

/**
 * Fills the block store until writes fail, then checks: every failure a 503 SlowDown, nothing of
 * a failed write visible or left on disk, every acknowledged object intact, the uploads
 * consistent; then frees space by deleting objects and checks the same gateway process stores
 * again.
 */
describe('the block store disk full (drill)', () => {
  let mnt: string | undefined;
  let gw: GatewayUnderTest | undefined;
  let s3: S3Client;

  beforeAll(async () => {
    mnt = mountTmpfs(DISK_MIB);
    gw = await startGateway('diskfull', {
      BLOCK_STORE_DIR: mnt,
      BLOCK_SIZE_BYTES: String(BLOCK),
      BLOCK_GC_INTERVAL_SECONDS: '1',
    });
    // no SDK retries: every failure is seen and counted
    s3 = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: gw.credentials, forcePathStyle: true, maxAttempts: 1 });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  }, 300_000);

  afterAll(async () => {
    s3?.destroy();
    await gw?.stop();
    if (mnt) unmount(mnt);
  }, 120_000);

  it('answers 503 SlowDown when full, shows nothing half-written, keeps every acknowledged object, and stores again once space returns', async () => {
    const started = Date.now();
    const dir = mnt!;
    const acked = new Map<string, Buffer>();
    const failures: { op: string; key: string; outcome: Outcome & { ok: false } }[] = [];
    const uploads: Upload[] = [];
    let attempts = 0;

    const put = async (key: string, body: Buffer): Promise<Outcome> => {
      attempts++;
      const r = await attempt(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body })));
      if (r.ok) acked.set(key, body);
      else failures.push({ op: 'PutObject', key, outcome: r });
      return r;
    };
    const uploadPart = async (u: Upload, n: number, body: Buffer): Promise<Outcome> => {
      attempts++;
      const r = await attempt(s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: u.key, UploadId: u.uploadId, PartNumber: n, Body: body })));
      if (r.ok) u.parts.set(n, { body, etag: r.etag! });
      else failures.push({ op: 'UploadPart', key: `${u.key}#${n}`, outcome: r });
      return r;
    };
    const complete = (u: Upload, numbers: number[], etags: Map<number, string>) =>
      attempt(
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: BUCKET,
            Key: u.key,
            UploadId: u.uploadId,
            MultipartUpload: { Parts: numbers.map((n) => ({ PartNumber: n, ETag: etags.get(n) ?? '"0"' })) },
          }),
        ),
      );
    const create = async (key: string): Promise<Upload> => {
      const r = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
      const u = { key, uploadId: r.UploadId!, parts: new Map() };
      uploads.push(u);
      return u;
    };
    const etagsOf = (u: Upload) => new Map([...u.parts].map(([n, p]) => [n, p.etag]));

    // an upload in progress across the whole drill: part 1 now, part 2 while full and again after
    const open = await create('open/upload');
    expect((await uploadPart(open, 1, randomBytes(PART))).ok).toBe(true);

    // fill: single PUTs and multipart objects until writes keep failing
    let firstFailureAt: number | undefined;
    for (let i = 0; i < 80 && failures.length < 6; i++) {
      if (i % 3 === 2) {
        const u = await create(`mp/${i}`);
        const p1 = await uploadPart(u, 1, randomBytes(PART));
        const p2 = p1.ok ? await uploadPart(u, 2, randomBytes(LAST_PART)) : p1;
        if (p2.ok) {
          const c = await complete(u, [1, 2], etagsOf(u));
          expect(c).toMatchObject({ ok: true }); // metadata only: no block is written
          acked.set(u.key, Buffer.concat([u.parts.get(1)!.body, u.parts.get(2)!.body]));
          uploads.splice(uploads.indexOf(u), 1);
        }
      } else {
        await put(`single/${i}`, randomBytes(SINGLE));
      }
      if (failures.length && firstFailureAt === undefined) firstFailureAt = Date.now();
    }
    expect(failures.length).toBeGreaterThanOrEqual(6);
    const freeWhenFull = await freeBytes(dir);

    // while full: part 2 of the open upload fails, and completing with it is refused as S3 does
    expect((await uploadPart(open, 2, randomBytes(4 * MiB))).ok).toBe(false);
    const refusedComplete = await complete(open, [1, 2], new Map([[1, open.parts.get(1)!.etag], [2, '"00000000000000000000000000000000"']]));
    expect(refusedComplete).toMatchObject({ ok: false, status: 400, code: 'InvalidPart' });

    // every failure is a clean S3 error: 503 SlowDown, saying the storage is out of space
    const byCode: Record<string, number> = {};
    for (const f of failures) byCode[`${f.outcome.status} ${f.outcome.code}`] = (byCode[`${f.outcome.status} ${f.outcome.code}`] ?? 0) + 1;
    expect(byCode).toEqual({ '503 SlowDown': failures.length });
    for (const f of failures) expect(f.outcome.message).toMatch(/out of space/);

    // nothing half-written is visible: no HEAD of a failed key, the listing holds exactly the acknowledged keys
    for (const f of failures.filter((x) => x.op === 'PutObject')) {
      const head = await attempt(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: f.key })));
      expect({ key: f.key, head }).toMatchObject({ head: { ok: false, status: 404 } });
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect((listed.Contents ?? []).map((c) => c.Key).sort()).toEqual([...acked.keys()].sort());
    for (const c of listed.Contents ?? []) expect(c.Size).toBe(acked.get(c.Key!)!.length);
    // the uploads are consistent: each lists exactly its acknowledged parts
    const inProgress = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    expect((inProgress.Uploads ?? []).map((u) => u.UploadId).sort()).toEqual(uploads.map((u) => u.uploadId).sort());
    for (const u of uploads) {
      const parts = await s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: u.key, UploadId: u.uploadId }));
      expect((parts.Parts ?? []).map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual(
        [...u.parts].sort(([a], [b]) => a - b).map(([n, p]) => [n, p.etag, p.body.length]),
      );
    }
    // and nothing of a failed write is left on disk: no temp file, exactly the blocks of what was acknowledged
    const files = filesUnder(dir);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const expectedBlocks =
      [...acked.entries()].reduce((n, [k, b]) => n + (k.startsWith('mp/') ? blocksOf(PART) + blocksOf(LAST_PART) : blocksOf(b.length)), 0) +
      uploads.reduce((n, u) => n + [...u.parts.values()].reduce((m, p) => m + blocksOf(p.body.length), 0), 0);
    expect(files.length).toBe(expectedBlocks);

    // every acknowledged object is intact
    const readBack = async () => {
      for (const [key, body] of acked) {
        const got = await bodyBytes((await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body);
        expect({ key, sha: sha(got) }).toEqual({ key, sha: sha(body) });
      }
    };
    await readBack();

    // space returns: delete half of the single objects and abort the uploads that failed
    const pid = gw!.process.pid;
    const deleted = [...acked.keys()].filter((k) => k.startsWith('single/')).filter((_, i) => i % 2 === 0);
    for (const key of deleted) {
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
      acked.delete(key);
    }
    for (const u of uploads.filter((x) => x !== open))
      await s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: u.key, UploadId: u.uploadId }));
    const freeAfter = await waitFor(
      'the deleted objects\' blocks to be removed from the block store',
      async () => {
        const free = await freeBytes(dir);
        return free >= 12 * MiB ? free : undefined;
      },
      60_000,
      200,
    );

    // the same gateway process stores again: a new PUT, the open upload's part 2 and its completion
    const again = randomBytes(SINGLE);
    expect(await put('after/space-returned', again)).toMatchObject({ ok: true });
    const recoveredAt = Date.now();
    const part2 = randomBytes(4 * MiB);
    expect(await uploadPart(open, 2, part2)).toMatchObject({ ok: true });
    expect(await complete(open, [1, 2], etagsOf(open))).toMatchObject({ ok: true });
    acked.set(open.key, Buffer.concat([open.parts.get(1)!.body, part2]));
    expect(gw!.process.pid).toBe(pid);
    expect(gw!.process.exitCode).toBeUndefined();
    await readBack();
    expect(filesUnder(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const figures = {
      drill: 'disk-full',
      tmpfsMiB: DISK_MIB,
      blockBytes: BLOCK,
      attempts,
      acknowledged: attempts - failures.length,
      failed: byCode,
      refusedComplete: `${refusedComplete.ok ? 200 : refusedComplete.status} ${refusedComplete.ok ? '' : refusedComplete.code}`,
      lost: 0,
      wrong: 0,
      freeBytesWhenFull: freeWhenFull,
      freeBytesAfterDeletes: freeAfter,
      fullForMs: recoveredAt - (firstFailureAt ?? recoveredAt),
      durationMs: Date.now() - started,
      loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    process.stdout.write(`\n[drill] ${JSON.stringify(figures)}\n`);
  }, 300_000);
});
