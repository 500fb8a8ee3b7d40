import { hostname } from 'os';
import { UploadCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { KafkaClient, KafkaQueueProducer } from '@ostore/queue/data-access';
import { UsageRecordOnTopic, UsageTopicReader } from '@ostore/queue/data-access/testing';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';
import { abortAfter, alice, body, bucketWith, DAY_MS, history, pattern, put, rule, stack, Stack } from './support';

const PARTITIONS = 3;

/**
 * The scheduler app emits a usage delta for every byte its lifecycle actions release: an
 * Expiration that deletes an object, an AbortIncompleteMultipartUpload that drops parts. A
 * Transition moves bytes between storage classes without changing the bucket's size: no delta.
 * Candidates are published as a scanner would; the deltas are read from s3-<cluster>-usage.
 */
describe('usage deltas of the scheduler app', () => {
  let s: Stack;
  let kafka: KafkaClient;
  let producer: KafkaQueueProducer;
  let reader: UsageTopicReader;
  let app: AppProcess;
  const cluster = freshCluster('schedusage');
  const port = 25000 + Math.floor(Math.random() * 1000);

  beforeAll(async () => {
    s = await stack('schedusage');
    kafka = new KafkaClient({ brokers: stackEnv().kafkaBrokers, clientId: 'scanner-spec', cluster, partitions: PARTITIONS, replicationFactor: 1 });
    producer = new KafkaQueueProducer(kafka);
    reader = await UsageTopicReader.start(kafka);
    app = new AppProcess('scheduler', {
      ...appEnv(s.keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      QUEUE_SESSION_TIMEOUT_MS: '6000',
      BLOCK_STORE: 'cassandra',
      LIFECYCLE_DEBUG_DAY_SECONDS: '1',
      USAGE_LINGER_MS: '20',
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
  });
  afterAll(async () => {
    await app?.stop();
    await reader?.close();
    await producer?.close();
    await kafka?.close();
    await s?.close();
  });

  const ofBucket = (bucketId: string) => (records: UsageRecordOnTopic[]) => records.filter((r) => r.delta.bucketId === bucketId);
  const logTail = () => app.output.join('').slice(-6000);
  const alive = () => {
    if (app.exitCode !== undefined) throw new Error(`scheduler exited (${app.exitCode}):\n${logTail()}`);
  };
  /** waitFor, failing with the scheduler's log. */
  const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number) =>
    waitFor(what, probe, timeoutMs, 200).catch((e) => {
      throw new Error(`${(e as Error).message}\n--- scheduler log ---\n${logTail()}`);
    });
  const metric = (name: string) => metricSum(`http://127.0.0.1:${port}`, name);

  it('a Transition emits nothing; an Expiration deletion and an upload abort emit remove deltas of the bytes they release', async () => {
    const b = await bucketWith(
      s.core,
      'sched-usage',
      'Unversioned',
      rule('<Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition>', '<Filter><Prefix>cold/</Prefix></Filter>', 'cold') +
        rule('<Expiration><Days>1</Days></Expiration>', '<Filter><Prefix>old/</Prefix></Filter>', 'expire') +
        abortAfter(1),
    );
    // written two lifecycle days ago (the core's clock), so every action is due at once
    const since = Date.now();
    s.clock.set(since - 2 * DAY_MS);
    const cold = pattern(200_000, 3); // over the 128 KiB transition minimum
    const plain = pattern(90_000, 4);
    const vCold = await put(s.core, b.name, 'cold/big.bin', cold);
    const vPlain = await put(s.core, b.name, 'old/plain.bin', plain);
    const up = await s.core.multipart.create({ bucket: b.name, key: 'uploads/mp', owner: alice, meta: { userMeta: {} } });
    await s.core.multipart.uploadPart({ bucket: b.name, key: 'uploads/mp', uploadId: up.uploadId, partNumber: 1, body: body(pattern(70_000, 5)) });
    await s.core.multipart.uploadPart({ bucket: b.name, key: 'uploads/mp', uploadId: up.uploadId, partNumber: 2, body: body(pattern(30_000, 6)) });
    const candidate = (key: string, versionId: string, ruleId: string, action: 'Transition' | 'Expiration') =>
      VersionCandidate.toMessage({
        bucketId: b.bucketId,
        bucket: b.name,
        key,
        parent: key.slice(0, key.lastIndexOf('/') + 1),
        name: key.slice(key.lastIndexOf('/') + 1),
        versions: [{ versionId, rules: [{ ruleId, action }] }],
        scannedAt: new Date(),
        sourceHost: 'cass-0',
      });

    // 1. the Transition, alone: applied (GLACIER), and no delta for it
    await producer.publish('versions', 0, [candidate('cold/big.bin', vCold.versionId, 'cold', 'Transition')]);
    await until(
      'the transition applied',
      async () => {
        alive();
        return (await history(s.core, b.name, 'cold/big.bin'))[0]?.kind === 'GLACIER' ? true : undefined;
      },
      240_000,
    );

    // 2. the expiration and the abort
    await producer.publish('versions', 0, [candidate('old/plain.bin', vPlain.versionId, 'expire', 'Expiration')]);
    await producer.publish('uploads', 1, [UploadCandidate.toMessage({ bucketId: b.bucketId, bucket: b.name, key: 'uploads/mp', uploadId: up.uploadId, ruleId: 'abort' })]);

    const mine = ofBucket(b.bucketId)(
      await until('three remove deltas', async () => {
        alive();
        return ofBucket(b.bucketId)(reader.records).length >= 3 ? reader.records : undefined;
      }, 240_000),
    );
    // the expired object, and each part of the aborted upload
    expect(mine.map((r) => r.delta.bytes).sort((x, y) => x - y)).toEqual([-plain.length, -70_000, -30_000]);
    for (const r of mine) {
      expect(r.key).toBe(b.bucketId);
      expect(r.delta).toMatchObject({ bucket: b.name, kind: 'remove', source: 'scheduler', sourceHost: hostname() });
      expect(r.delta.at.getTime()).toBeGreaterThanOrEqual(since);
    }
    expect(await history(s.core, b.name, 'old/plain.bin')).toEqual([]);
    expect((await s.core.multipart.listUploads({ bucket: b.name, maxUploads: 10 })).uploads).toEqual([]);
    expect(await history(s.core, b.name, 'cold/big.bin')).toEqual([{ versionId: 'null', kind: 'GLACIER', latest: true }]);
    // the transition's delta, had there been one, was recorded before these and would be on the topic first
    expect(reader.records.filter((r) => r.delta.bucketId === b.bucketId)).toHaveLength(3);
    expect(await metric('ostore_usage_deltas_published_total')).toBe(3);
    expect(await metric('ostore_lifecycle_actions_applied_total')).toBe(3);

    app.signal('SIGTERM');
    expect((await app.waitForExit(20_000)).code).toBe(0);
  }, 600_000);
});
