import { join } from 'path';
import { MAX_TOKEN, mergeSpans, MIN_TOKEN } from '@ostore/lifecycle/scan';
import { FolderCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { CassandraClient, CassandraOptions } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { freshCluster, stackEnv, testStack } from '@ostore/testing';
import { applyAll, CapturingProducer, folderRows, scannerCleanup, ScannerCleanup, scheduler, untilJudged } from './folder-cleanup.harness';
import { alice, DAY, migrate, put, readTopic, rule, s3, scannerOf, ScannerUnderTest, setLifecycle } from './support';

/**
 * Three Cassandra nodes on 127.0.0.11-13 (a stack of their own, derived from this test run's:
 * stack dir <run's stack dir>-cluster, CQL and storage ports one above the run's; Kafka is the run's
 * own), a keyspace with RF 3, one scanner beside each node. Run by `npm run test:cluster` only
 * (jest.cluster.config.js), never by `npm test`: starting the nodes takes about a minute on two
 * cores. The nodes are stopped afterwards unless they were already running (or OSTORE_KEEP_CLUSTER=1).
 */
const stack = require(join(__dirname, '../../../tools/stack/index.cjs'));

const run = testStack();
const STACK = {
  stackDir: `${run.stackDir}-cluster`,
  cassandraNodes: 3,
  cassandraHost: '127.0.0.11',
  cassandraPort: run.cassandraPort + 1,
  cassandraStoragePort: run.cassandraStoragePort + 1,
  cassandraHeap: '768M',
  kafkaPort: run.kafkaPort + 2,
  kafkaControllerPort: run.kafkaControllerPort + 2,
  only: 'cassandra',
  // servers of another stack dir on these endpoints are an error, never used
  exclusive: true,
  timeoutSec: 900, // three nodes start one after the other; minutes on a loaded 2-core box
};
const NODES = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
const T0 = Date.UTC(2026, 4, 1, 8, 0, 0);
const DIRS = 100;
const PER_DIR = 20;

describe('local scan on a three-node cluster with RF 3', () => {
  let startedByUs = false;
  let options: CassandraOptions;
  let db: CassandraClient;
  const scanners: ScannerUnderTest[] = [];
  const cleanups: ScannerCleanup[] = [];
  const closingDbs: CassandraClient[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const t = Date.now();
    const info = await stack.ensureStackUp({ ...STACK, quiet: true });
    startedByUs = info.startedByUs;
    timings.stackUpMs = Date.now() - t;
    options = {
      contactPoints: NODES,
      port: STACK.cassandraPort,
      localDataCenter: 'datacenter1',
      keyspace: `${stackEnv().run}_cluster`,
      consistency: 'localQuorum',
      serialConsistency: 'localSerial',
      requestTimeoutMs: 20_000,
      applicationName: 'ostore-cluster-spec',
    };
    const m = Date.now();
    await migrate(options, 'SimpleStrategy:3');
    timings.migrateMs = Date.now() - m;
  }, 600_000);

  afterAll(async () => {
    await Promise.all([...scanners, ...cleanups].map((s) => s.close()));
    await db?.shutdown();
    await Promise.all(closingDbs.map((d) => d.shutdown()));
    if (startedByUs && process.env.OSTORE_KEEP_CLUSTER !== '1') await stack.stackDown({ stackDir: STACK.stackDir, quiet: true });
    process.stdout.write(`\n[cluster] timings ${JSON.stringify(timings)}\n`);
  }, 120_000);

  it('finds every eligible version exactly once, each scanner publishing to its own partition', async () => {
    const clock = new FakeClock(T0);
    let t = Date.now();
    const s = await s3(options, clock);
    db = s.db;
    await s.core.buckets.create({ name: 'cluster-logs', owner: alice, location: 'us-east-1', acl: 'private' });
    await s.core.buckets.setVersioning('cluster-logs', 'Enabled');
    await setLifecycle(
      s.core,
      'cluster-logs',
      rule('exp', 'old/', '<Expiration><Days>1</Days></Expiration>') +
        rule('nc', '', '<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>'),
    );
    const due = new Map<string, string[]>(); // key -> due version ids
    const jobs: (() => Promise<void>)[] = [];
    for (let d = 0; d < DIRS; d++) {
      for (let o = 0; o < PER_DIR; o++) {
        const key = `${d % 2 === 0 ? 'old' : 'new'}/d${d}/o${o}`;
        jobs.push(async () => {
          const v1 = await put(s.core, 'cluster-logs', key, 'a');
          if (o % 4 === 0) {
            const v2 = await put(s.core, 'cluster-logs', key, 'b'); // v1 noncurrent: due
            due.set(key, key.startsWith('old/') ? [v2.versionId, v1.versionId] : [v1.versionId]);
          } else if (key.startsWith('old/')) {
            due.set(key, [v1.versionId]);
          }
        });
      }
    }
    for (let i = 0; i < jobs.length; i += 50) await Promise.all(jobs.slice(i, i + 50).map((j) => j()));
    timings.writeMs = Date.now() - t;

    clock.set(T0 + 3 * DAY);
    const cluster = freshCluster('threenodes');
    for (let i = 0; i < NODES.length; i++)
      scanners.push(
        await scannerOf({
          options,
          nodeAddress: NODES[i],
          db,
          brokers: stackEnv().kafkaBrokers,
          cluster,
          clock,
          settings: { hostIndex: i, fetchSize: 200 },
        }),
      );

    // the primary ranges of the three nodes are disjoint and cover the ring
    const all = scanners.flatMap((x) => x.spans);
    expect(mergeSpans(all)).toEqual([{ start: MIN_TOKEN, end: MAX_TOKEN }]);
    expect(all.reduce((sum, x) => sum + (x.end - x.start), 0n)).toBe(MAX_TOKEN - MIN_TOKEN);
    for (const x of scanners) expect(x.spans.length).toBeGreaterThan(0);

    t = Date.now();
    const results = await Promise.all(
      scanners.map((x) => x.scanner.run(x.tasks.get('versions')!, x.spans, new AbortController().signal)),
    );
    timings.scanMs = Date.now() - t;
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    // together they read every row once (RF 3: each row is on all three nodes, read on one)
    const rows = results.reduce((sum, r) => sum + r.stats.rows, 0);
    expect(rows).toBe(DIRS * PER_DIR + (DIRS * PER_DIR) / 4);
    for (const r of results) expect(r.stats.rows).toBeGreaterThan(0);

    // each scanner talked to its own node only
    for (let i = 0; i < NODES.length; i++) {
      const hosts = scanners[i].scanClient.getState().getConnectedHosts().map((h) => h.address);
      expect(hosts).toEqual([`${NODES[i]}:${STACK.cassandraPort}`]);
    }

    const messages = await readTopic(stackEnv().kafkaBrokers, cluster, 'versions');
    const partitionOf = new Map(scanners.map((x, i) => [x.hostId, i]));
    const seen = new Map<string, string[]>();
    for (const m of messages) {
      const c = VersionCandidate.fromMessage(m.value);
      expect(m.partition).toBe(partitionOf.get(c.sourceHost));
      expect(seen.has(c.key)).toBe(false);
      seen.set(c.key, c.versions.map((v) => v.versionId));
    }
    expect(new Set(messages.map((m) => m.partition))).toEqual(new Set([0, 1, 2]));
    expect([...seen.keys()].sort()).toEqual([...due.keys()].sort());
    for (const [key, ids] of due) expect(seen.get(key)).toEqual(ids);
    timings.candidates = messages.length;
  });

  it('the empty-directory cleanup: three scanners combine their filters and each empty directory is judged once', async () => {
    const clock = new FakeClock(Date.now());
    const s = await s3(options, clock);
    closingDbs.push(s.db);
    const { bucketId } = await s.core.buckets.create({ name: 'cluster-folders', owner: alice, location: 'us-east-1', acl: 'private' });
    // 60 directories of which every third keeps a key: the others are emptied by deletes
    const keep = new Set<string>();
    const jobs: Promise<unknown>[] = [];
    for (let d = 0; d < 60; d++) {
      const key = `t${d % 6}/d${d}/k`;
      jobs.push(put(s.core, 'cluster-folders', key, 'x'));
      if (d % 3 === 0) keep.add(key);
    }
    await Promise.all(jobs);
    for (let d = 0; d < 60; d++) {
      const key = `t${d % 6}/d${d}/k`;
      if (!keep.has(key)) await s.core.objects.delete('cluster-folders', key, alice);
    }
    const producers = NODES.map(() => new CapturingProducer());
    for (let i = 0; i < NODES.length; i++)
      cleanups.push(
        await scannerCleanup({ keyspace: options.keyspace!, db: s.db, clock, producer: producers[i], source: `node${i}`, node: { options, address: NODES[i] } }),
      );
    expect(cleanups.map((c) => c.ring.expectedHosts)).toEqual([3, 3, 3]);
    expect(mergeSpans(cleanups.flatMap((c) => c.ring.spans))).toEqual([{ start: MIN_TOKEN, end: MAX_TOKEN }]);

    const sut = scheduler(s.db);
    const expectedEmpty = [...new Set([...Array(60).keys()].filter((d) => d % 3 !== 0).map((d) => `t${d % 6}/d${d}/`))].sort();
    clock.advance(120_000);
    // each builds its own node's filter; none publishes before all three have built
    const firstTicks = [];
    for (const c of cleanups) firstTicks.push(await c.cycle.tick(c.ring, new AbortController().signal));
    expect(firstTicks.map((o) => o.kind)).toEqual(['built', 'built', 'built']);
    for (const p of producers) expect(p.published).toEqual([]);
    const outcomes = await Promise.all(cleanups.map((c) => untilJudged(c)));
    for (const o of outcomes) expect(o[o.length - 1].kind).toBe('scanned');
    const perScanner: FolderCandidate[][] = producers.map((p) => p.take().filter((c) => c.bucketId === bucketId && c.kind === 'object'));
    const published = perScanner.flat();
    // each empty directory published by exactly one scanner (its partition's primary), no non-empty one
    const dirs = published.map((c) => c.parent + c.name);
    expect(dirs.filter((d) => d.includes('/d')).sort()).toEqual(expectedEmpty);
    // the parents emptied with them (t1/, t2/, t4/, t5/) may be judged in the same pass; never one that keeps a key
    expect(dirs.filter((d) => !d.includes('/d')).every((d) => ['t1/', 't2/', 't4/', 't5/'].includes(d))).toBe(true);
    expect(new Set(dirs).size).toBe(dirs.length);
    expect(perScanner.filter((p) => p.length > 0).length).toBeGreaterThan(1);
    await applyAll(sut, published);
    const left = (await folderRows(s.db, bucketId)).filter((r) => r.startsWith('object:'));
    expect(left.filter((r) => /d\d+\/$/.test(r)).map((r) => r.slice('object:'.length)).sort()).toEqual(
      [...keep].map((k) => k.slice(0, k.lastIndexOf('/') + 1)).sort(),
    );
  });
});
