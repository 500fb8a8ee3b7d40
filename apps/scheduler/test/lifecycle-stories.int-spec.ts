import { randomBytes } from 'crypto';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  LifecycleRule,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DAY_MS, LifecycleSystem, QueueBackend, startLifecycleSystem } from './lifecycle-system';

/** When a story's data was written: every object's creation time lies in [from, to]. */
interface Written {
  from: number;
  to: number;
}

async function writing<T>(work: () => Promise<T>): Promise<T & Written> {
  const from = Date.now();
  const result = await work();
  return { ...result, from, to: Date.now() };
}

/** What a watch saw, and when it first saw it. */
interface Seen<T> {
  value: T;
  at: number;
}

/** Starts observing at once (the stories run side by side); the test that needs it awaits it. */
function watch<T>(p: Promise<T>): Promise<Seen<T>> {
  const seen = p.then((value) => ({ value, at: Date.now() }));
  seen.catch(() => undefined);
  return seen;
}

/** An effect first seen at `at` cannot have happened before the day it fell due. */
function notBefore(at: number, written: Written, days: number): void {
  if (at < written.from + days * DAY_MS)
    throw new Error(`seen ${((at - written.from) / DAY_MS).toFixed(2)} days after the writes, before the ${days} day(s) of the rule`);
}

async function keysUnder(s3: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const res = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (res.Contents ?? []).map((o) => o.Key!).sort();
}

interface VersionEntry {
  versionId: string;
  latest: boolean;
  marker: boolean;
  storageClass?: string;
}

/** What ListObjectVersions shows of one key: its versions and delete markers. */
async function versionsOf(s3: S3Client, bucket: string, key: string): Promise<VersionEntry[]> {
  const res = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
  return [
    ...(res.Versions ?? [])
      .filter((v) => v.Key === key)
      .map((v) => ({ versionId: v.VersionId!, latest: v.IsLatest!, marker: false, storageClass: v.StorageClass })),
    ...(res.DeleteMarkers ?? []).filter((m) => m.Key === key).map((m) => ({ versionId: m.VersionId!, latest: m.IsLatest!, marker: true })),
  ];
}

async function bytesOf(s3: S3Client, bucket: string, key: string, range?: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof S3ServiceException) return e.name;
    throw e;
  }
  throw new Error('expected the request to fail');
}

async function bucketWith(s3: S3Client, bucket: string, rules: LifecycleRule[], versioned = false): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  if (versioned) await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: bucket, LifecycleConfiguration: { Rules: rules } }));
}

async function put(s3: S3Client, bucket: string, key: string, body: Buffer | string) {
  return s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

/**
 * The lifecycle stories of issue 4, end to end: rules put with PutBucketLifecycleConfiguration,
 * the real gateway, scanner and scheduler as processes over the real Cassandra (and Kafka), a
 * lifecycle day of 10 seconds, and every effect observed through the S3 API only. The stories run
 * side by side from one setup (one bucket each, written at the same time); each test awaits its
 * story. The stories are written into the running system, so an effect first seen before its
 * rule's day would be caught. "Still there after N days" is shown after the scanner has completed
 * a pass that started after day N and the scheduler has processed everything published until
 * then, and before the day the object would be due.
 */
describe.each<QueueBackend>(['kafka', 'cassandra'])('lifecycle stories through S3 with QUEUE_BACKEND=%s', (backend) => {
  let sys: LifecycleSystem;
  let s3: S3Client;

  const expiry = 'lc-expiry';
  const expire1 = ['expire1/a.log', 'expire1/b.log', 'expire1/deep/c.log'];
  const expire5 = ['expire5/a.log', 'expire5/deep/b.log'];
  const keep = ['keep/a.txt', 'keep/expire1/b.txt', 'keep/expire5/c.txt'];
  let expiryWritten: Written;

  const noncurrent = 'lc-noncurrent';
  let docVersions: string[]; // oldest first; the last one is current
  let fewVersions: string[];
  let noncurrentWritten: Written;

  const markers = 'lc-markers';
  let hiddenVersion: string;
  let hidingMarker: string;
  let markersWritten: Written;

  const uploads = 'lc-uploads';
  let stale: string;
  let kept: string;
  let uploadsWritten: Written;

  const tiers = 'lc-tiers';
  const blob = randomBytes(300 * 1024); // five 64 KiB blocks; over the 128 KiB transition minimum
  const small = randomBytes(1024);
  let blobEtag: string;
  let tiersWritten: Written;

  const observed: Record<string, Promise<Seen<unknown>>> = {};

  beforeAll(async () => {
    sys = await startLifecycleSystem(backend);
    s3 = sys.s3;
    // the stories are written into the running system: an effect too early would be seen
    await sys.ready();

    const stories = await Promise.all([
      writing(async () => {
        await bucketWith(s3, expiry, [
          { ID: 'expire1', Status: 'Enabled', Filter: { Prefix: 'expire1/' }, Expiration: { Days: 1 } },
          { ID: 'expire5', Status: 'Enabled', Filter: { Prefix: 'expire5/' }, Expiration: { Days: 5 } },
        ]);
        await Promise.all([...expire1, ...expire5, ...keep].map((k) => put(s3, expiry, k, `body of ${k}`)));
        expect(await keysUnder(s3, expiry, '')).toEqual([...expire1, ...expire5, ...keep].sort());
        return {};
      }),
      writing(async () => {
        await bucketWith(
          s3,
          noncurrent,
          [{ ID: 'trim', Status: 'Enabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 2 } }],
          true,
        );
        const doc: string[] = [];
        for (let i = 1; i <= 5; i++) doc.push((await put(s3, noncurrent, 'doc', `doc v${i}`)).VersionId!);
        const few: string[] = [];
        for (let i = 1; i <= 2; i++) few.push((await put(s3, noncurrent, 'few', `few v${i}`)).VersionId!);
        return { doc, few };
      }),
      writing(async () => {
        await bucketWith(
          s3,
          markers,
          [
            { ID: 'eodm', Status: 'Enabled', Filter: {}, Expiration: { ExpiredObjectDeleteMarker: true } },
            { ID: 'trim', Status: 'Enabled', Filter: { Prefix: 'trim/' }, NoncurrentVersionExpiration: { NoncurrentDays: 1 } },
          ],
          true,
        );
        // a marker over nothing; a marker over a version that expires; a marker over a version that stays
        const lone = await s3.send(new DeleteObjectCommand({ Bucket: markers, Key: 'lone' }));
        expect(lone.DeleteMarker).toBe(true);
        await put(s3, markers, 'trim/old', 'old');
        expect((await s3.send(new DeleteObjectCommand({ Bucket: markers, Key: 'trim/old' }))).DeleteMarker).toBe(true);
        const hidden = (await put(s3, markers, 'hides/old', 'old')).VersionId!;
        const marker = (await s3.send(new DeleteObjectCommand({ Bucket: markers, Key: 'hides/old' }))).VersionId!;
        return { hidden, marker };
      }),
      writing(async () => {
        await bucketWith(s3, uploads, [
          { ID: 'abort', Status: 'Enabled', Filter: { Prefix: 'tmp/' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
        ]);
        const start = async (key: string) => {
          const id = (await s3.send(new CreateMultipartUploadCommand({ Bucket: uploads, Key: key }))).UploadId!;
          for (const n of [1, 2])
            await s3.send(new UploadPartCommand({ Bucket: uploads, Key: key, UploadId: id, PartNumber: n, Body: randomBytes(100 * 1024) }));
          return id;
        };
        const [staleId, keptId] = await Promise.all([start('tmp/big.bin'), start('keep/big.bin')]);
        const parts = await s3.send(new ListPartsCommand({ Bucket: uploads, Key: 'tmp/big.bin', UploadId: staleId }));
        expect(parts.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);
        return { staleId, keptId };
      }),
      writing(async () => {
        await bucketWith(s3, tiers, [
          { ID: 'cold', Status: 'Enabled', Filter: { Prefix: 'cold/' }, Transitions: [{ Days: 1, StorageClass: 'GLACIER_IR' }] },
        ]);
        const etag = (await put(s3, tiers, 'cold/blob.bin', blob)).ETag!;
        await put(s3, tiers, 'cold/small.bin', small);
        return { etag };
      }),
    ]);
    expiryWritten = stories[0];
    ({ doc: docVersions, few: fewVersions } = stories[1]);
    noncurrentWritten = stories[1];
    ({ hidden: hiddenVersion, marker: hidingMarker } = stories[2]);
    markersWritten = stories[2];
    ({ staleId: stale, keptId: kept } = stories[3]);
    uploadsWritten = stories[3];
    blobEtag = stories[4].etag;
    tiersWritten = stories[4];

    // the positive outcomes are watched from now on, side by side, each against its deadline
    observed.expire1Gone = watch(
      sys.until('expire1/ to be empty', expiryWritten.from + 3 * DAY_MS, async () =>
        (await keysUnder(s3, expiry, 'expire1/')).length === 0 ? true : undefined,
      ),
    );
    observed.docTrimmed = watch(
      sys.until('doc to keep its current and 2 noncurrent versions', noncurrentWritten.from + 3 * DAY_MS, async () => {
        const vs = await versionsOf(s3, noncurrent, 'doc');
        return vs.length === 3 ? vs : undefined;
      }),
    );
    observed.loneMarkerGone = watch(
      sys.until('the lone delete marker to be removed', markersWritten.from + 3 * DAY_MS, async () =>
        (await versionsOf(s3, markers, 'lone')).length === 0 ? true : undefined,
      ),
    );
    observed.trimmedKeyGone = watch(
      sys.until('trim/old: its version and then its marker to be removed', markersWritten.from + 4 * DAY_MS, async () =>
        (await versionsOf(s3, markers, 'trim/old')).length === 0 ? true : undefined,
      ),
    );
    observed.uploadAborted = watch(
      sys.until('the stale upload to be aborted', uploadsWritten.from + 3 * DAY_MS, async () => {
        const res = await s3.send(new ListMultipartUploadsCommand({ Bucket: uploads }));
        return (res.Uploads ?? []).some((u) => u.UploadId === stale) ? undefined : true;
      }),
    );
    observed.transitioned = watch(
      sys.until('cold/blob.bin in GLACIER_IR', tiersWritten.from + 3 * DAY_MS, async () => {
        const head = await s3.send(new HeadObjectCommand({ Bucket: tiers, Key: 'cold/blob.bin' }));
        return head.StorageClass === 'GLACIER_IR' ? head : undefined;
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(observed).map((p) => p.catch(() => undefined)));
    await sys?.stop();
  }, 60_000);

  it('1. Expiration Days=1 on expire1/: its objects are gone within 3 days, keep/ stays', async () => {
    notBefore((await observed.expire1Gone).at, expiryWritten, 1);
    await sys.settledAfter(expiryWritten.to + 3 * DAY_MS);
    expect(await keysUnder(s3, expiry, 'expire1/')).toEqual([]);
    expect(await keysUnder(s3, expiry, 'keep/')).toEqual([...keep].sort());
    for (const k of keep) expect((await bytesOf(s3, expiry, k)).toString()).toBe(`body of ${k}`);
  });

  it('3. NoncurrentVersionExpiration NoncurrentDays=1, NewerNoncurrentVersions=2: noncurrent versions trimmed to 2, the current one kept', async () => {
    const [v1, v2, v3, v4, v5] = docVersions;
    const seen = (await observed.docTrimmed) as Seen<VersionEntry[]>;
    notBefore(seen.at, noncurrentWritten, 1);
    const trimmed = seen.value;
    const shape = (vs: VersionEntry[]) => vs.map((v) => ({ id: v.versionId, latest: v.latest, marker: v.marker })).sort((a, b) => a.id.localeCompare(b.id));
    const expected = shape([
      { versionId: v5, latest: true, marker: false },
      { versionId: v4, latest: false, marker: false },
      { versionId: v3, latest: false, marker: false },
    ]);
    expect(shape(trimmed)).toEqual(expected);
    expect([v1, v2].some((v) => trimmed.some((t) => t.versionId === v))).toBe(false);

    // well past the day every noncurrent version of doc became due: still the newest two
    await sys.settledAfter(noncurrentWritten.to + 3 * DAY_MS);
    expect(shape(await versionsOf(s3, noncurrent, 'doc'))).toEqual(expected);
    expect((await bytesOf(s3, noncurrent, 'doc')).toString()).toBe('doc v5');
    expect((await s3.send(new GetObjectCommand({ Bucket: noncurrent, Key: 'doc', VersionId: v3 }))).VersionId).toBe(v3);
    // fewer noncurrent versions than NewerNoncurrentVersions: nothing to trim
    expect((await versionsOf(s3, noncurrent, 'few')).map((v) => v.versionId).sort()).toEqual([...fewVersions].sort());
  });

  it('4. ExpiredObjectDeleteMarker: a marker is removed once it is the only version left; one that hides a version stays', async () => {
    await observed.loneMarkerGone; // at once: nothing to wait for
    // its version became noncurrent at the write of the marker, and was due a day later
    notBefore((await observed.trimmedKeyGone).at, markersWritten, 1);
    await sys.settledAfter(Math.max(Date.now(), markersWritten.to + 3 * DAY_MS));
    expect(await versionsOf(s3, markers, 'lone')).toEqual([]);
    expect(await versionsOf(s3, markers, 'trim/old')).toEqual([]);
    const hides = await versionsOf(s3, markers, 'hides/old');
    expect(hides.sort((a, b) => Number(b.marker) - Number(a.marker))).toEqual([
      { versionId: hidingMarker, latest: true, marker: true },
      { versionId: hiddenVersion, latest: false, marker: false, storageClass: 'STANDARD' },
    ]);
    expect(await errorOf(s3.send(new HeadObjectCommand({ Bucket: markers, Key: 'hides/old' })))).toBe('NotFound');
  });

  it('5. AbortIncompleteMultipartUpload DaysAfterInitiation=1: the upload and its parts are gone, one outside the rule stays', async () => {
    notBefore((await observed.uploadAborted).at, uploadsWritten, 1);
    expect(await errorOf(s3.send(new ListPartsCommand({ Bucket: uploads, Key: 'tmp/big.bin', UploadId: stale })))).toBe('NoSuchUpload');
    await sys.settledAfter(uploadsWritten.to + 3 * DAY_MS);
    const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: uploads }));
    expect((listed.Uploads ?? []).map((u) => [u.Key, u.UploadId])).toEqual([['keep/big.bin', kept]]);
    const parts = await s3.send(new ListPartsCommand({ Bucket: uploads, Key: 'keep/big.bin', UploadId: kept }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, 100 * 1024],
      [2, 100 * 1024],
    ]);
  });

  it('6. Transition Days=1 to GLACIER_IR: shown by HeadObject and the listings, the bytes unchanged', async () => {
    const seen = (await observed.transitioned) as Seen<{ ETag?: string; ContentLength?: number }>;
    notBefore(seen.at, tiersWritten, 1);
    const head = seen.value;
    expect(head.ETag).toBe(blobEtag);
    expect(head.ContentLength).toBe(blob.length);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: tiers, Prefix: 'cold/' }));
    expect(listed.Contents?.map((o) => [o.Key, o.StorageClass])).toContainEqual(['cold/blob.bin', 'GLACIER_IR']);
    expect((await versionsOf(s3, tiers, 'cold/blob.bin')).map((v) => v.storageClass)).toEqual(['GLACIER_IR']);
    const got = await s3.send(new GetObjectCommand({ Bucket: tiers, Key: 'cold/blob.bin' }));
    expect([got.StorageClass, got.ETag]).toEqual(['GLACIER_IR', blobEtag]);
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(blob)).toBe(true);
    expect((await bytesOf(s3, tiers, 'cold/blob.bin', 'bytes=65000-200000')).equals(blob.subarray(65000, 200001))).toBe(true);

    // under the default 128 KiB transition minimum: stays STANDARD
    await sys.settledAfter(tiersWritten.to + 3 * DAY_MS);
    const after = await s3.send(new ListObjectsV2Command({ Bucket: tiers, Prefix: 'cold/' }));
    expect(after.Contents?.map((o) => [o.Key, o.StorageClass])).toEqual([
      ['cold/blob.bin', 'GLACIER_IR'],
      ['cold/small.bin', 'STANDARD'],
    ]);
    expect((await s3.send(new HeadObjectCommand({ Bucket: tiers, Key: 'cold/small.bin' }))).StorageClass).toBeUndefined();
    expect((await bytesOf(s3, tiers, 'cold/small.bin')).equals(small)).toBe(true);
  });

  // last: the longest story
  it('2. Expiration Days=5: the objects are still there after 4 days and gone by 7', async () => {
    await sys.settledAfter(expiryWritten.to + 4 * DAY_MS);
    const at4Days = await keysUnder(s3, expiry, 'expire5/');
    const bodies = await Promise.all(expire5.map(async (k) => (await bytesOf(s3, expiry, k).catch(() => Buffer.from('(gone)'))).toString()));
    // read before any of them could be due: else the state says nothing about day 4 (a box too
    // loaded to settle within a test day), and the failure must say so rather than look like an
    // early expiry
    const shownAt = Date.now();
    if (shownAt >= expiryWritten.from + 5 * DAY_MS)
      throw new Error(`the 4-day state was read only ${(shownAt - expiryWritten.from) / DAY_MS} days after the writes (the system settled too slowly)`);
    expect(at4Days).toEqual([...expire5].sort());
    expect(bodies).toEqual(expire5.map((k) => `body of ${k}`));

    await sys.until('expire5/ to be empty', expiryWritten.from + 7 * DAY_MS, async () =>
      (await keysUnder(s3, expiry, 'expire5/')).length === 0 ? true : undefined,
    );
    notBefore(Date.now(), expiryWritten, 5);
    expect(await keysUnder(s3, expiry, '')).toEqual([...keep].sort());
  });
});
