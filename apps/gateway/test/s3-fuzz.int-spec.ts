import { CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, UploadPartCommand, CompleteMultipartUploadCommand } from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { Prng } from './fuzz/prng';
import { FuzzRequest, FuzzWorld, generate } from './fuzz/requests';
import { FuzzSender, Outcome } from './fuzz/sender';
import { bodyBytes } from './s3-test-helpers';

/**
 * Seeded, time-bounded fuzzing of a real gateway (issue 13): generated XML bodies for every
 * XML-body operation, Authorization headers, presigned query strings, aws-chunked bodies, Range
 * and conditional headers, keys and listing parameters. No 5xx (but 501 NotImplemented), no
 * crash, no hang, every object stored before the run unchanged after it.
 *
 * Reproduce a failure with the seed and case it prints:
 *   FUZZ_SEED=<seed> FUZZ_CASE=<index> npx jest apps/gateway/test/s3-fuzz.int-spec.ts --selectProjects integration
 * (state-dependent failures: FUZZ_CASES=<index + 1> replays the run up to that case). FUZZ_SECONDS (default 75) and FUZZ_CASES (default 5,000) bound the run.
 * Wider exploration: run it again and again without FUZZ_SEED (and without CI set); each run draws a new seed.
 */
/**
 * Under CI (`CI` set, as .ci/run does) a fixed seed, the one whose hang a3ec634 fixed: a run there fails on a
 * regression, not on whichever new input class a random draw happens to reach, which would block unrelated work.
 * Everywhere else each run draws a new seed, so the fuzzing keeps exploring; a failure prints its seed.
 */
const CI_SEED = 464635902;
const SEED = Number(process.env.FUZZ_SEED ?? (process.env.CI ? CI_SEED : Math.floor(Math.random() * 2 ** 31)));
const ONLY_CASE = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 75);
const MAX_CASES = Number(process.env.FUZZ_CASES ?? 5000);
const CONCURRENCY = 4;
// longer than the gateway's own body-idle timeout (20 s): a request it forgot to answer, not a slow one
const HANG_MS = 30000;

const FAMILIES = ['anonymous', 'auth', 'chunked', 'copy', 'key', 'presigned', 'query', 'range', 'xml'];

interface Finding {
  index: number;
  problem: string;
  request: FuzzRequest;
  outcome: Outcome;
}

const clip = (s: string, n = 1500) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

function describeFinding(f: Finding): string {
  const o = f.outcome;
  const sent = o.kind === 'unsendable' ? undefined : o.sent;
  return [
    `case ${f.index} (FUZZ_SEED=${SEED} FUZZ_CASE=${f.index}) family ${f.request.family}: ${f.problem}`,
    sent ? `  ${sent.method} ${clip(sent.target, 600)}` : `  ${f.request.method} ${clip(f.request.path, 600)}`,
    sent ? `  headers ${clip(JSON.stringify(sent.headers))}` : '',
    sent ? `  body ${clip(JSON.stringify(sent.body.toString('latin1')))}` : '',
    o.kind === 'response' ? `  → ${o.status} ${clip(o.body.toString('utf8'), 800)}` : o.kind === 'no-response' || o.kind === 'unsendable' ? `  → ${o.error}` : '  → no answer',
  ].join('\n');
}

/** What is wrong with an outcome, if anything. */
function judge(r: FuzzRequest, o: Outcome): string | undefined {
  if (o.kind === 'hang') return `no answer within ${HANG_MS} ms`;
  if (o.kind !== 'response') return undefined;
  const text = o.body.toString('utf8');
  if (o.status >= 500 && !(o.status === 501 && text.includes('<Code>NotImplemented</Code>'))) return `answered ${o.status}`;
  const kept = r.readsKept;
  if (!kept || typeof r.query !== 'object' || r.query['partNumber'] !== undefined) return undefined;
  if (o.status === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(o.headers['content-range']));
    if (!m || Number(m[3]) !== kept.body.length) return `206 with Content-Range ${o.headers['content-range']}`;
    if (!o.body.equals(kept.body.subarray(Number(m[1]), Number(m[2]) + 1))) return `206 bytes differ from the stored object's ${m[1]}-${m[2]}`;
  }
  if (o.status === 200 && !o.body.equals(kept.body)) return `200 with ${o.body.length} bytes, not the stored ${kept.body.length}`;
  return undefined;
}

describe('fuzzing the gateway', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const keep = { bucket: 'fuzz-keep', objects: [] as Array<{ key: string; body: Buffer; etag: string }> };
  const work = { bucket: 'fuzz-work', uploads: [] as Array<{ key: string; uploadId: string }>, etags: [] as string[] };

  beforeAll(async () => {
    gw = await startGateway('fuzz');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket: keep.bucket }));
    await s3.send(new CreateBucketCommand({ Bucket: work.bucket }));
    const rng = new Prng(7);
    for (const [key, body] of [
      ['precious-a', Buffer.from('precious bytes')],
      ['dir/précieux ü+%.bin', rng.bytes(100_000)],
      ['empty', Buffer.alloc(0)],
    ] as const) {
      await s3.send(new PutObjectCommand({ Bucket: keep.bucket, Key: key, Body: body }));
      keep.objects.push({ key, body, etag: (await s3.send(new HeadObjectCommand({ Bucket: keep.bucket, Key: key }))).ETag! });
    }
    const parts = [rng.bytes(5 * 1024 * 1024), rng.bytes(1000)];
    const mpu = await s3.send(new CreateMultipartUploadCommand({ Bucket: keep.bucket, Key: 'multi/part' }));
    const done = [];
    for (const [i, Body] of parts.entries()) done.push({ PartNumber: i + 1, ETag: (await s3.send(new UploadPartCommand({ Bucket: keep.bucket, Key: 'multi/part', UploadId: mpu.UploadId, PartNumber: i + 1, Body }))).ETag });
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: keep.bucket, Key: 'multi/part', UploadId: mpu.UploadId, MultipartUpload: { Parts: done } }));
    keep.objects.push({ key: 'multi/part', body: Buffer.concat(parts), etag: (await s3.send(new HeadObjectCommand({ Bucket: keep.bucket, Key: 'multi/part' }))).ETag! });
    for (let i = 0; i < 4; i++) {
      const key = `upload-${i}`;
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: work.bucket, Key: key }));
      work.uploads.push({ key, uploadId: UploadId! });
      work.etags.push((await s3.send(new UploadPartCommand({ Bucket: work.bucket, Key: key, UploadId, PartNumber: 1, Body: `part of ${key}` }))).ETag!);
    }
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it(
    `answers up to 5,000 generated hostile requests without a 5xx, a crash or a hang, and changes nothing it must not (seed ${SEED})`,
    async () => {
      const world: FuzzWorld = { keep, work };
      const sender = new FuzzSender(gw.endpoint, gw.credentials, CONCURRENCY, HANG_MS);
      const findings: Finding[] = [];
      const families = new Map<string, number>();
      const statuses = new Map<string, number>();
      const slowest: Array<{ index: number; family: string; ms: number }> = [];
      const deadline = Date.now() + SECONDS * 1000;
      let next = ONLY_CASE ?? 0;
      const last = ONLY_CASE ?? MAX_CASES - 1;
      const worker = async () => {
        while (next <= last && Date.now() < deadline && findings.length < 20 && gw.process.exitCode === undefined) {
          const index = next++;
          const request = generate(Prng.forCase(SEED, index), world);
          const started = Date.now();
          const outcome = await sender.send(request);
          slowest.push({ index, family: request.family, ms: Date.now() - started });
          slowest.sort((a, b) => b.ms - a.ms).splice(5);
          families.set(request.family, (families.get(request.family) ?? 0) + 1);
          const status = outcome.kind === 'response' ? String(outcome.status) : outcome.kind;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const problem = judge(request, outcome);
          if (problem) findings.push({ index, problem, request, outcome });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      sender.close();
      const total = [...families.values()].reduce((a, b) => a + b, 0);
      // the figures of the run, for the record (and to see that every family ran)
      console.log(`fuzz seed ${SEED}: ${total} requests; families ${JSON.stringify(Object.fromEntries(families))}; outcomes ${JSON.stringify(Object.fromEntries(statuses))}; slowest ${JSON.stringify(slowest)}`);

      expect(gw.process.exitCode).toBeUndefined();
      expect(findings.map(describeFinding).join('\n\n')).toBe('');
      // every family of input ran (the count of requests depends on the machine; 5,000 take ~60 s on an idle one)
      if (ONLY_CASE === undefined) expect([...families.keys()].map((f) => f.split(':')[0]).filter((f, i, all) => all.indexOf(f) === i).sort()).toEqual(FAMILIES);
      expect((await fetch(`${gw.managementUrl}/health/ready`)).status).toBe(200);
      for (const obj of keep.objects) {
        const got = await s3.send(new GetObjectCommand({ Bucket: keep.bucket, Key: obj.key }));
        expect({ key: obj.key, etag: got.ETag, same: (await bodyBytes(got.Body)).equals(obj.body) }).toEqual({ key: obj.key, etag: obj.etag, same: true });
      }
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: keep.bucket }));
      expect((listed.Contents ?? []).map((c) => c.Key).sort()).toEqual(keep.objects.map((o) => o.key).sort());
    },
    (SECONDS + 90) * 1000,
  );
});
