import { createHash } from 'crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText } from './s3-test-helpers';

/**
 * Many clients writing, overwriting and deleting the same keys (no Paxos on the PUT path).
 * At the end every view agrees: GET/HEAD serve the newest version of the version list,
 * listings show a key exactly when its newest version is not a delete marker.
 */
describe.each(['Unversioned', 'Enabled'])('concurrent writers on the same keys (%s bucket)', (versioning) => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = `race-${versioning.toLowerCase()}`;
  const keys = ['hot/a', 'hot/b', 'hot/dir/c', 'hot-d'];

  beforeAll(async () => {
    gw = await startGateway(`race${versioning}`);
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    if (versioning === 'Enabled') await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  });
  afterAll(() => gw?.stop());

  it('ends with every index agreeing with the version lists', async () => {
    let op = 0;
    await Promise.all(
      Array.from({ length: 12 }, async (_, client) => {
        for (let i = 0; i < 25; i++) {
          const Key = keys[(client + i) % keys.length];
          const n = op++;
          if (n % 5 === 4) await s3.send(new DeleteObjectCommand({ Bucket, Key }));
          else await s3.send(new PutObjectCommand({ Bucket, Key, Body: `client ${client} op ${n}` }));
        }
      }),
    );
    const listed = new Set((await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'hot' }))).Contents?.map((c) => c.Key));
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket, Prefix: 'hot' }));
    for (const Key of keys) {
      const latestVersion = versions.Versions?.find((v) => v.Key === Key && v.IsLatest);
      const latestMarker = versions.DeleteMarkers?.find((m) => m.Key === Key && m.IsLatest);
      expect(Number(!!latestVersion) + Number(!!latestMarker)).toBeLessThanOrEqual(1);
      const head = await s3.send(new HeadObjectCommand({ Bucket, Key })).catch(() => undefined);
      if (latestVersion) {
        expect(listed.has(Key)).toBe(true);
        expect(head?.ETag).toBe(latestVersion.ETag);
        const body = await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key }))).Body);
        expect(`"${createHash('md5').update(body).digest('hex')}"`).toBe(latestVersion.ETag);
      } else {
        expect(listed.has(Key)).toBe(false);
        expect(head).toBeUndefined();
      }
      if (versioning === 'Unversioned') {
        expect(versions.Versions?.filter((v) => v.Key === Key).length ?? 0).toBeLessThanOrEqual(1);
      }
    }
  });
});
