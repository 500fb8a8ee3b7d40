import { createHash, randomBytes } from 'crypto';
import { cpus, loadavg } from 'os';
import {
  CreateBucketCommand,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { CassandraClient } from '@ostore/shared/cassandra';
import { AppProcess, appEnv, CassandraRing, freshCluster, GatewayUnderTest, RING_DC, RING_NODES, startGateway, waitFor } from '@ostore/testing';
import { ManagedApp } from './lifecycle-system';
import { classify, isAbsent, NodeFaultLoad, observe } from './node-fault.workload';

/*
 * Issue 13's Cassandra node fault drill, in `npm run test:cluster` (jest.cluster.config.js): a
 * three-node ring with the keyspace at RF 3 (NetworkTopologyStrategy, as deploy/k8s), the real
 * gateway at the production consistency levels (LOCAL_QUORUM, LOCAL_SERIAL: the defaults of
 * base-config.ts, which deploy/ does not override), one scanner beside each node and a scheduler
 * (lifecycle day of DAY_SECONDS), AWS SDK v3 clients doing a mixed PUT/GET/DELETE load. One node
 * is SIGKILLed mid-load, left down for DOWN_SECONDS of load, started again, and the load goes on
 * until another node gossips with it again (a newer generation, NORMAL, its heartbeat advancing). Then every key is read back and
 * judged against what the clients were told (node-fault.workload.ts), and every object under the
 * rule's prefix must have been expired by the lifecycle, nothing outside it.
 * The figures are printed as one `[drill] {...}` JSON line (recorded in docs/drills/RESULTS.md).
 */
const CLIENTS = Number(process.env.DRILL_CLIENTS ?? 6);
const WARMUP_OPS = Number(process.env.DRILL_WARMUP_OPS ?? 100);
const DOWN_SECONDS = Number(process.env.DRILL_DOWN_SECONDS ?? 30);
const AFTER_REJOIN_OPS = Number(process.env.DRILL_AFTER_REJOIN_OPS ?? 100);
const DAY_SECONDS = 10;
/** The node killed: not the first contact point, not the seed. */
const VICTIM = 2;
const BUCKET = `node-fault-${randomBytes(4).toString('hex')}`;
/**
 * The ring's keyspace, kept between runs while the ring is (OSTORE_KEEP_CLUSTER=1): a fresh
 * keyspace costs minutes of schema agreement between three nodes on a loaded machine. Each run has
 * a bucket of its own in it.
 */
const KEYSPACE = 'drill_nodefault';
const KEEP = 'exp-keep/';

let nextPort = 26000 + Math.floor(Math.random() * 1000) * 4;

describe('a Cassandra node SIGKILLed and restarted during S3 load and a lifecycle run (RF 3)', () => {
  let ring: CassandraRing;
  let gateway: GatewayUnderTest | undefined;
  const apps: ManagedApp[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    ring = await CassandraRing.up();
  }, 600_000);

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.process.stop()));
    await gateway?.stop();
    if (gateway && process.env.OSTORE_KEEP_CLUSTER !== '1') {
      const db = new CassandraClient({
        contactPoints: RING_NODES,
        port: ring.options.cassandraPort,
        localDataCenter: RING_DC,
        keyspace: 'system',
        consistency: 'localQuorum',
        serialConsistency: 'localSerial',
        requestTimeoutMs: 60_000,
        applicationName: 'ostore-node-fault-drill',
      });
      await db.execute(`DROP KEYSPACE IF EXISTS ${KEYSPACE}`).catch(() => undefined);
      await db.shutdown();
    }
    await ring?.down();
  }, 180_000);

  it('loses no acknowledged write, deletes nothing wrongly and fails only with S3 retryable errors', async () => {
    const cluster = freshCluster('nodefault');
    const same = {
      ...ring.appEnv(),
      OSTORE_CLUSTER: cluster,
      CASSANDRA_KEYSPACE: KEYSPACE,
      CASSANDRA_REPLICATION: `NetworkTopologyStrategy:${RING_DC}=3`,
      KAFKA_TOPIC_PARTITIONS: String(RING_NODES.length),
      // blocks on the filesystem (shared by gateway and scheduler): the ring carries the metadata
      BLOCK_STORE: 'fs',
      BLOCK_SIZE_BYTES: String(64 * 1024),
    };
    gateway = await startGateway('nodefault', same);
    const gw = gateway;
    const common = {
      ...appEnv(KEYSPACE, cluster),
      ...same,
      MANAGEMENT_HOST: '127.0.0.1',
      QUEUE_BACKEND: 'kafka',
      LIFECYCLE_DEBUG_DAY_SECONDS: String(DAY_SECONDS),
      SHUTDOWN_TIMEOUT_MS: '10000',
      MIGRATE_ON_START: 'false',
    };
    const app = (name: 'scanner' | 'scheduler', env: Record<string, string>) => {
      const port = nextPort++;
      const a = new ManagedApp(new AppProcess(name, { ...common, MANAGEMENT_PORT: String(port), ...env }).start(), `http://127.0.0.1:${port}`);
      apps.push(a);
      return a;
    };
    // one scanner beside each node, reading the ranges that node is primary for, as deployed
    RING_NODES.forEach((node, i) =>
      app('scanner', {
        SCANNER_NODE_ADDRESS: node,
        SCANNER_HOST_INDEX: String(i),
        SCAN_TABLES: 'versions',
        SCAN_INTERVAL_SECONDS: '1',
        SCAN_CHECKPOINT_SECONDS: '1',
        SCAN_RATE_LIMIT_ROWS_PER_SECOND: '0',
      }),
    );
    const scheduler = app('scheduler', { QUEUE_SESSION_TIMEOUT_MS: '6000' });
    await Promise.all(apps.map((a) => a.ready()));

    const setup = gw.client();
    await setup.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await setup.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: BUCKET,
        LifecycleConfiguration: { Rules: [{ ID: 'exp', Status: 'Enabled', Filter: { Prefix: 'exp/' }, Expiration: { Days: 1 } }] },
      }),
    );
    // keys that share the rule's prefix as text but not as a path element: never expired
    const keep = Array.from({ length: 40 }, (_, i) => `${KEEP}k${i}`);
    for (const key of keep) await setup.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));

    // each client sees every failure (no SDK retries); a request unanswered after 60 s is an error (a hang)
    const clients = Array.from(
      { length: CLIENTS },
      () =>
        new S3Client({
          endpoint: gw.endpoint,
          region: 'us-east-1',
          credentials: gw.credentials,
          forcePathStyle: true,
          maxAttempts: 1,
          requestHandler: { requestTimeout: 60_000, connectionTimeout: 5_000, throwOnRequestTimeout: true },
        }),
    );
    const load = new NodeFaultLoad(clients, BUCKET);
    const timings: Record<string, number> = {};
    const started = Date.now();
    load.start();
    try {
      await load.untilMore(WARMUP_OPS, 600_000);
      const generationBefore = (await ring.gossip(1)).get(RING_NODES[VICTIM - 1])!.generation;
      const opsBeforeKill = load.operations;
      const killedAt = Date.now();
      await ring.kill(VICTIM);
      // DOWN_SECONDS of load with the node down (a deadline, not a sleep: the load runs meanwhile)
      await waitFor('the node down for the drill', async () => (Date.now() - killedAt >= DOWN_SECONDS * 1000 ? true : undefined), DOWN_SECONDS * 1000 + 5000, 250);
      const opsWhileDown = load.operations - opsBeforeKill;
      await ring.start(VICTIM);
      timings.downMs = Date.now() - killedAt;
      await ring.untilRejoined(VICTIM, 1, generationBefore, 300_000);
      timings.untilRejoinedMs = Date.now() - killedAt;
      await load.untilMore(AFTER_REJOIN_OPS, 600_000);
      await load.stop();
      timings.loadMs = Date.now() - started;

      // read back every key of the load and every kept key, retrying S3 retryable errors only
      const verify = clients[0];
      const final = { present: 0, absent: 0, lost: 0, resurrectedOrWrong: 0, unreadable: 0 };
      const before = { wrong404: load.counts.wrong404, wrongBody: load.counts.wrongBody };
      for (const key of load.keys.keys()) {
        const seen = await readRetrying(verify, key);
        if (seen === undefined) {
          final.unreadable++;
          continue;
        }
        if (load.judge(key, seen, 'after the drill')) final[isAbsent(seen) ? 'absent' : 'present']++;
        else if (isAbsent(seen)) final.lost++;
        else final.resurrectedOrWrong++;
      }
      // the kept keys hold their bytes (a wrong lifecycle deletion would make them absent)
      const keptGone: string[] = [];
      for (const key of keep) if ((await readRetrying(verify, key)) !== sha256(key)) keptGone.push(key);

      // every object under the rule's prefix expires (a day after it was written, plus the scan)
      const expiredInTime = await waitFor(
        'every object under exp/ expired',
        async () => ((await keysUnder(setup, 'exp/')).length === 0 ? true : undefined),
        240_000,
        2000,
      ).then(
        () => true,
        () => false,
      );
      const expLeft = expiredInTime ? [] : await keysUnder(setup, 'exp/');
      timings.untilExpiredMs = Date.now() - started;

      const applied = lifecycleDeletions(scheduler);
      const goneOnRetry = lifecycleGoneOnRetry(scheduler).filter((k) => !applied.includes(k));
      const figures = {
        drill: 'cassandra-node-sigkill',
        consistency: 'LOCAL_QUORUM / LOCAL_SERIAL (base-config defaults, as deployed)',
        replication: `NetworkTopologyStrategy:${RING_DC}=3`,
        clients: CLIENTS,
        acknowledged: load.counts.acknowledged,
        acknowledgedTotal: sum(Object.values(load.counts.acknowledged)),
        failedRetryable: load.counts.retryable,
        failedRetryableTotal: sum(Object.values(load.counts.retryable)),
        unexpected: load.counts.unexpected,
        wrongDuringLoad: { wrong404: before.wrong404, wrongBody: before.wrongBody },
        final,
        lost: final.lost,
        wrong: before.wrong404 + before.wrongBody + final.resurrectedOrWrong,
        keys: load.keys.size,
        lifecycle: {
          expPutsSent: load.expKeys.size,
          expPutsAcknowledged: load.expAcked.size,
          expired: applied.filter((k) => k.startsWith('exp/')).length,
          expiredOnALostAnswer: goneOnRetry.filter((k) => k.startsWith('exp/')).length,
          wronglyDeleted: [...applied, ...goneOnRetry].filter((k) => !k.startsWith('exp/')).length,
          keptGone: keptGone.length,
          expLeft: expLeft.length,
          untilExpiredMs: timings.untilExpiredMs,
          failedActions: scheduler.process.output.join('').split('\n').filter((l) => l.includes('"lifecycle action failed"')).length,
        },
        opsWhileDown,
        downMs: timings.downMs,
        untilRejoinedMs: timings.untilRejoinedMs,
        loadMs: timings.loadMs,
        drillMs: Date.now() - t0,
        loadavg: loadavg().map((x) => Number(x.toFixed(2))),
        cpus: cpus().length,
        appsExited: apps.filter((a) => a.process.exitCode !== undefined).map((a) => `${a.process.app}: ${a.process.exitCode}`),
      };
      process.stdout.write(`\n[drill] ${JSON.stringify(figures)}\n`);
      if (load.wrong.length) process.stdout.write(`[drill] wrong answers:\n${load.wrong.join('\n')}\n`);

      if (expLeft.length) process.stdout.write(`[drill] not expired: ${expLeft.slice(0, 20).join(', ')}\n--- scheduler ---\n${scheduler.logTail()}\n`);
      expect(load.counts.unexpected).toEqual({});
      expect(expLeft).toEqual([]);
      expect(load.wrong).toEqual([]);
      expect(final.unreadable).toBe(0);
      expect(figures.lost).toBe(0);
      expect(figures.wrong).toBe(0);
      expect(figures.lifecycle.wronglyDeleted).toBe(0);
      expect(keptGone).toEqual([]);
      expect(figures.lifecycle.failedActions).toBe(0);
      // every acknowledged exp/ object was expired by the lifecycle (not merely missing): applied,
      // or found already gone by the retry of an attempt whose answer the fault lost
      const expiredKeys = new Set([...applied, ...goneOnRetry]);
      expect([...load.expAcked].filter((k) => !expiredKeys.has(k))).toEqual([]);
      // the drill really overlapped the fault: load while the node was down, and failures seen or not
      expect(opsWhileDown).toBeGreaterThan(0);
      expect(load.counts.acknowledged['put'] ?? 0).toBeGreaterThan(0);
      expect(load.counts.acknowledged['delete'] ?? 0).toBeGreaterThan(0);
      expect(load.counts.acknowledged['overwrite'] ?? 0).toBeGreaterThan(0);
      expect(figures.lifecycle.expired).toBeGreaterThan(0);
    } finally {
      await load.stop();
    }
  }, 1_200_000);
});

/** A GET retried (up to 6 times, 1 s apart) while it fails with an S3 retryable error; undefined if it never succeeds. */
async function readRetrying(client: S3Client, key: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 6; attempt++) {
    try {
      return await observe(client, BUCKET, key);
    } catch (e) {
      if (!classify(e).retryable) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  return undefined;
}

async function keysUnder(s3: S3Client, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const res = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(res.Contents ?? []).map((o) => o.Key!));
    token = res.NextContinuationToken;
  } while (token);
  return keys;
}

/** Keys the scheduler logged an applied lifecycle action for (distinct). */
function lifecycleDeletions(scheduler: ManagedApp): string[] {
  return loggedKeys(scheduler, (line) => line.includes('"lifecycle action applied"'));
}

/**
 * Keys whose action the scheduler skipped because the version was already gone: an attempt whose
 * Paxos round committed while its answer was lost to the dying node (a timeout, retried as
 * retryable) finds its own deletion done on the retry.
 */
function lifecycleGoneOnRetry(scheduler: ManagedApp): string[] {
  return loggedKeys(scheduler, (line) => line.includes('"lifecycle action skipped"') && line.includes('"reason":"version-gone"'));
}

function loggedKeys(scheduler: ManagedApp, match: (line: string) => boolean): string[] {
  const keys = new Set<string>();
  for (const line of scheduler.process.output.join('').split('\n')) {
    if (!match(line) || !line.endsWith('}')) continue;
    const entry = JSON.parse(line) as { key?: string; bucket?: string };
    if (entry.bucket === BUCKET && entry.key) keys.add(entry.key);
  }
  return [...keys];
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);
