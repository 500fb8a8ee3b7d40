import { hostname } from 'os';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Metastore } from '@ostore/metastore/data-access';
import { KafkaClient } from '@ostore/queue/data-access';
import { UsageRecordOnTopic, UsageTopicReader } from '@ostore/queue/data-access/testing';
import { CassandraClient } from '@ostore/shared/cassandra';
import { cassandraOptions, freshCluster, GatewayUnderTest, metricSum, stackEnv, startGateway, waitFor } from '@ostore/testing';

/**
 * The gateway app publishes a usage delta for every size change a client makes (seed 000:
 * +blkStore, −blkRemove, +blkCopy) to s3-<cluster>-usage, keyed by the bucket id, read back here
 * from the real Kafka. Its own cluster name, so the topic is this spec's alone.
 */
describe('usage deltas of the gateway app (USAGE_DELTAS=kafka, the default)', () => {
  const cluster = freshCluster('gwusage');
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let kafka: KafkaClient;
  let reader: UsageTopicReader;
  let db: CassandraClient;
  const started = Date.now();

  beforeAll(async () => {
    gw = await startGateway('gwusage', { OSTORE_CLUSTER: cluster, BLOCK_SIZE_BYTES: String(64 * 1024), USAGE_LINGER_MS: '20' });
    s3 = gw.client();
    kafka = new KafkaClient({ brokers: stackEnv().kafkaBrokers, clientId: 'usage-spec', cluster, partitions: 3, replicationFactor: 1 });
    reader = await UsageTopicReader.start(kafka);
    db = new CassandraClient(cassandraOptions(gw.keyspace));
    await db.connect();
  });
  afterAll(async () => {
    await reader?.close();
    await kafka?.close();
    await db?.shutdown();
    await gw?.stop();
  });

  const bucketIdOf = async (name: string) => (await new Metastore(db).buckets.get(name))!.bucketId;
  const ofBucket = (bucketId: string) => (records: UsageRecordOnTopic[]) => records.filter((r) => r.delta.bucketId === bucketId);
  const metric = (name: string) => metricSum(gw.managementUrl, name);

  it('a PUT then a DELETE: +size then -size on the bucket\'s key, from this gateway', async () => {
    const Bucket = 'usage-put-delete';
    await s3.send(new CreateBucketCommand({ Bucket }));
    const bucketId = await bucketIdOf(Bucket);
    const size = 150_000;

    await s3.send(new PutObjectCommand({ Bucket, Key: 'a/big.bin', Body: Buffer.alloc(size, 7) }));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'a/big.bin' }));

    const mine = ofBucket(bucketId)(await reader.until('the PUT and DELETE deltas', (r) => ofBucket(bucketId)(r).length >= 2));
    expect(mine.map((r) => r.delta)).toEqual([
      expect.objectContaining({ bucketId, bucket: Bucket, kind: 'store', bytes: size, source: 'gateway', sourceHost: hostname() }),
      expect.objectContaining({ bucketId, bucket: Bucket, kind: 'remove', bytes: -size, source: 'gateway', sourceHost: hostname() }),
    ]);
    expect(mine.every((r) => r.key === bucketId)).toBe(true);
    expect(mine[0].partition).toBe(mine[1].partition);
    expect(mine[1].offset).toBeGreaterThan(mine[0].offset);
    expect(mine[0].delta.eventId).not.toBe(mine[1].delta.eventId);
    // the removal's id names the removed version row, so a racing remover's report counts once
    expect(mine[1].delta.eventId).toMatch(/^rm:[0-9a-f-]{36}$/);
    for (const r of mine) {
      expect(r.delta.at.getTime()).toBeGreaterThanOrEqual(started);
      expect(r.delta.at.getTime()).toBeLessThanOrEqual(Date.now());
    }
  });

  it('an inline body, a copy, a multipart upload and their deletes: every change once, summing to zero', async () => {
    const Bucket = 'usage-copy-multipart';
    await s3.send(new CreateBucketCommand({ Bucket }));
    const bucketId = await bucketIdOf(Bucket);
    const part1 = Buffer.alloc(5 * 1024 * 1024, 1);
    const part2 = Buffer.alloc(100_000, 2);

    await s3.send(new PutObjectCommand({ Bucket, Key: 'small.txt', Body: 'tiny body, stored inline' }));
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy.txt', CopySource: `${Bucket}/small.txt` }));
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mp.bin' }));
    const e1 = await s3.send(new UploadPartCommand({ Bucket, Key: 'mp.bin', UploadId: up.UploadId, PartNumber: 1, Body: part1 }));
    const e2 = await s3.send(new UploadPartCommand({ Bucket, Key: 'mp.bin', UploadId: up.UploadId, PartNumber: 2, Body: part2 }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'mp.bin',
        UploadId: up.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: e1.ETag }, { PartNumber: 2, ETag: e2.ETag }] },
      }),
    );
    const stored = await reader.until('the stores', (r) => ofBucket(bucketId)(r).length >= 5);
    const small = 'tiny body, stored inline'.length;
    expect(ofBucket(bucketId)(stored).map((r) => [r.delta.kind, r.delta.bytes, r.delta.objects])).toEqual([
      ['store', small, 1],
      ['copy', small, 1],
      // multipart bytes count when each part is stored; completing moves them into the object,
      // which is one more object (no bytes)
      ['store', part1.length, 0],
      ['store', part2.length, 0],
      ['store', 0, 1],
    ]);

    for (const Key of ['small.txt', 'copy.txt', 'mp.bin']) await s3.send(new DeleteObjectCommand({ Bucket, Key }));

    const all = ofBucket(bucketId)(await reader.until('the removes', (r) => ofBucket(bucketId)(r).length >= 8));
    expect(all.slice(5).map((r) => [r.delta.kind, r.delta.bytes, r.delta.objects])).toEqual([
      ['remove', -small, -1],
      ['remove', -small, -1],
      ['remove', -(part1.length + part2.length), -1],
    ]);
    expect(all.reduce((sum, r) => sum + r.delta.bytes, 0)).toBe(0);
    expect(all.reduce((sum, r) => sum + (r.delta.objects ?? 0), 0)).toBe(0);
    expect(new Set(all.map((r) => r.partition)).size).toBe(1);
    expect(new Set(all.map((r) => r.delta.eventId)).size).toBe(all.length);
    expect(all.every((r) => r.key === bucketId && r.delta.bucket === Bucket)).toBe(true);
  });

  it('counts what it published on /metrics, with nothing dropped or failed', async () => {
    const onTopic = reader.records.length;
    await waitFor('the published counter to catch up', async () => ((await metric('ostore_usage_deltas_published_total')) === onTopic ? true : undefined), 10_000);
    expect(await metric('ostore_usage_deltas_dropped_total')).toBe(0);
    expect(await metric('ostore_usage_publish_errors_total')).toBe(0);
    expect(await metric('ostore_usage_buffered_deltas')).toBe(0);
  });
});
