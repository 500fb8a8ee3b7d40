import { S3Client } from '@aws-sdk/client-s3';
import { cassandraOptions, freePort, freshCluster, GatewayUnderTest, stackEnv, startGateway } from '@ostore/testing';
import { resolve } from 'path';
import { KafkaClient } from '@ostore/queue/data-access';
import {
  coreOver,
  createWideBucket,
  Layout,
  measureListings,
  scanOnce,
  SchedulerProcess,
  wideKeys,
  writeObjects,
} from './wide-directory-story';

const N = Number(process.env.WIDE_OBJECTS ?? 200_000);
const LAYOUTS: Layout[] =
  process.env.WIDE_LAYOUT === 'both'
    ? ['contiguous', 'interleaved']
    : [(process.env.WIDE_LAYOUT as Layout | undefined) ?? 'contiguous'];
const ROOT = resolve(__dirname, '../../..');

/**
 * Issue 4: ONE directory with N objects of which 90 % are expired by a lifecycle rule. The real
 * local scan (in this process, the scanner app's wiring) and the real scheduler app (debug day of
 * 1 s) must find and delete every matching object, keep every other one, and the directory must
 * still list — exactly the kept keys, in S3 order — right after the deletions, with every
 * tombstone still in its partition (the contiguous layout leaves a run of 180,000, more than
 * Cassandra's tombstone_failure_threshold in one read). Numbers: tools/bench/lifecycle/WIDE-DIRECTORY-RESULTS.md.
 */
describe.each(LAYOUTS)(`a directory of ${N} objects, 90 %% expired by lifecycle (%s)`, (layout) => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let kafka: KafkaClient;
  const closers: (() => Promise<unknown>)[] = [];
  const keys = wideKeys(layout, N);
  const kept = keys.filter((k) => !k.expires).map((k) => k.key);
  const expiring = keys.filter((k) => k.expires).map((k) => k.key);
  const middleAfter = keys[Math.floor(N / 2)].key;
  const bucket = `wide-${layout}`;
  const log = (m: string) => process.stdout.write(`[wide ${layout}] ${m}\n`);

  beforeAll(async () => {
    gw = await startGateway(`wide${layout}`, { CASSANDRA_REQUEST_TIMEOUT_MS: '60000' });
    closers.push(() => gw.stop());
    s3 = new S3Client({
      endpoint: gw.endpoint,
      region: 'us-east-1',
      credentials: gw.credentials,
      forcePathStyle: true,
      maxAttempts: 1,
    });
    await createWideBucket(s3, bucket, layout);
  });
  afterAll(async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  });

  it('scans, deletes every matching object, keeps every other one, and still lists the directory', async () => {
    const cassandra = cassandraOptions(gw.keyspace);
    const { core, client } = await coreOver({ ...cassandra, requestTimeoutMs: 30_000 });
    closers.push(() => client.shutdown());
    const write = await writeObjects(core, bucket, { id: 'tester', displayName: 'tester' }, keys, 64);
    log(`wrote ${N} objects in ${write.seconds.toFixed(1)} s (${Math.round(write.perSecond)}/s)`);

    const before = await measureListings(s3, bucket, middleAfter);
    expect(before.walk.error).toBeUndefined();
    expect(before.walk.keys).toEqual(keys.map((k) => k.key));
    log(
      `listing before: first page ${before.first.ms?.toFixed(0)} ms, middle ${before.middle.ms?.toFixed(0)} ms, walk ${before.walk.pages} pages in ${((before.walk.ms ?? 0) / 1000).toFixed(1)} s`,
    );

    const cluster = freshCluster(`wide${layout}`);
    const env = stackEnv();
    kafka = new KafkaClient({
      brokers: env.kafkaBrokers,
      clientId: 'wide-spec',
      cluster,
      partitions: 3,
      replicationFactor: 1,
    });
    closers.push(() => kafka.close());
    const s = new SchedulerProcess(
      ROOT,
      {
        OSTORE_CLUSTER: cluster,
        CASSANDRA_CONTACT_POINTS: env.cassandraHost,
        CASSANDRA_PORT: String(env.cassandraPort),
        CASSANDRA_KEYSPACE: gw.keyspace,
        KAFKA_BROKERS: env.kafkaBrokers.join(','),
        KAFKA_TOPIC_PARTITIONS: '3',
      },
      await freePort(),
      resolve(ROOT, `tools/bench/.work/wide-spec-${gw.keyspace}/scheduler.log`),
    );
    closers.push(() => s.stop());
    await s.start();
    // every object is older than one (debug) lifecycle day once a day has passed since the last write
    await new Promise((r) => setTimeout(r, 1100));

    const t0 = performance.now();
    const scan = await scanOnce({
      cassandra,
      db: client,
      nodeAddress: env.cassandraHost,
      kafka,
      source: `wide-${gw.keyspace}`,
    });
    log(`scan: ${scan.rows} rows in ${scan.seconds.toFixed(1)} s, ${scan.candidates} candidates`);
    expect(scan.candidates).toBe(expiring.length);
    const done = await s.waitHandled(expiring.length, 50 * 60_000, (c) =>
      log(`scheduler ${JSON.stringify(c)}`),
    );
    log(
      `cleanup: ${done.applied} applied ${((done.lastAt - t0) / 1000).toFixed(1)} s after the scan started (${Math.round(done.applied / ((done.lastAt - done.firstAt) / 1000))}/s)`,
    );
    expect(done).toMatchObject({ applied: expiring.length, failed: 0 });

    // right after the deletions: every tombstone is still in the directory's partitions
    const after = await measureListings(s3, bucket, middleAfter);
    log(
      `listing after: first page ${after.first.ms?.toFixed(0)} ms, middle ${after.middle.ms?.toFixed(0)} ms, walk ${after.walk.pages} pages in ${((after.walk.ms ?? 0) / 1000).toFixed(1)} s`,
    );
    expect(after.first.error).toBeUndefined();
    expect(after.middle.error).toBeUndefined();
    expect(after.walk.error).toBeUndefined();
    expect(after.walk.keys).toEqual(kept);
    expect(after.first.keys).toBe(Math.min(1000, kept.length));
    expect(after.middle.keys).toBe(Math.min(1000, kept.filter((k) => k > middleAfter).length));

    // a sample of the expired keys is gone for reads too, a sample of the kept ones is there
    const step = Math.max(1, Math.floor(expiring.length / 200));
    for (let i = 0; i < expiring.length; i += step) {
      const gone = await core.objects.head(bucket, expiring[i]).then(
        () => false,
        (e: { code?: string }) => e.code === 'NoSuchKey',
      );
      expect({ key: expiring[i], gone }).toEqual({ key: expiring[i], gone: true });
    }
    for (let i = 0; i < kept.length; i += Math.max(1, Math.floor(kept.length / 50)))
      expect((await core.objects.head(bucket, kept[i])).size).toBe(200);

    // the scanner passes over the deleted directory again and finds nothing left to do
    const rescan = await scanOnce({
      cassandra,
      db: client,
      nodeAddress: env.cassandraHost,
      kafka,
      source: `wide-${gw.keyspace}-2`,
    });
    log(
      `second scan: ${rescan.rows} rows in ${rescan.seconds.toFixed(1)} s, ${rescan.candidates} candidates`,
    );
    expect(rescan.candidates).toBe(0);
  });
});
