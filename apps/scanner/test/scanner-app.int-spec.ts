import { COMPLETED, CassandraScanStateStore } from '@ostore/lifecycle/scan';
import { VersionCandidate } from '@ostore/queue/contracts';
import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { SystemClock } from '@ostore/shared/clock';
import { S3Core } from '@ostore/s3/core';
import { AppProcess, appEnv, cassandraOptions, freshCluster, freshKeyspace, stackEnv, waitFor } from '@ostore/testing';
import { alice, migrate, put, readTopic, rule, s3, setLifecycle } from './support';

const port = 24000 + Math.floor(Math.random() * 1000) * 2;
const OBJECTS = 400;

/**
 * The scanner app as deployed (main.ts, config, modules, graceful shutdown): it scans a keyspace
 * slowly (a rows-per-second limit), gets SIGTERM in the middle of its pass, stops at a page
 * boundary with its position saved, and a new process finishes the pass: every due object is
 * published exactly once, to the partition of SCANNER_HOST_INDEX.
 */
describe('the scanner app', () => {
  const keyspace = freshKeyspace('scanapp');
  const cluster = freshCluster('scanapp');
  let core: S3Core;
  let db: CassandraClient;
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    await migrate(cassandraOptions(keyspace));
    // the objects are an hour old; with a 1-second lifecycle day, Days=1 made them due long ago
    ({ core, db } = await s3(cassandraOptions(keyspace), new FakeClock(Date.now() - 3_600_000)));
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await db?.shutdown();
  });

  const start = () => {
    const p = new AppProcess('scanner', {
      ...appEnv(keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SCANNER_HOST_INDEX: '2',
      SCAN_INTERVAL_SECONDS: '3600',
      SCAN_FETCH_SIZE: '20',
      SCAN_RATE_LIMIT_ROWS_PER_SECOND: '60',
      SCAN_CHECKPOINT_SECONDS: '1',
      LIFECYCLE_DEBUG_DAY_SECONDS: '1',
      SHUTDOWN_TIMEOUT_MS: '15000',
    }).start();
    processes.push(p);
    return p;
  };
  const metric = async (name: string) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };
  const published = async () => (await readTopic(stackEnv().kafkaBrokers, cluster, 'versions')).filter((m) => m.partition === 2);

  it('stops its pass at a page boundary on SIGTERM, and a new process finishes it: every candidate once', async () => {
    await core.buckets.create({ name: 'app-scan', owner: alice, location: 'us-east-1', acl: 'private' });
    await setLifecycle(core, 'app-scan', rule('exp', 'logs/', '<Expiration><Days>1</Days></Expiration>'));
    const keys = Array.from({ length: OBJECTS }, (_, i) => `logs/d${i % 40}/${i}.log`);
    for (let i = 0; i < keys.length; i += 25) await Promise.all(keys.slice(i, i + 25).map((k) => put(core, 'app-scan', k)));
    await put(core, 'app-scan', 'keep/me');

    const first = start();
    await waitFor('the first candidates', async () => ((await published()).length >= 40 ? true : undefined), 90_000, 500);
    expect(await metric('ostore_scanner_versions_scanned_total')).toBeGreaterThan(0);
    first.signal('SIGTERM');
    expect(await first.waitForExit(30_000)).toEqual({ code: 0, signal: null });
    expect(first.output.join('')).toMatch(/"msg":"scan pass stopped"/);

    const state = new CassandraScanStateStore(db, new SystemClock());
    const hostId = JSON.parse(first.output.join('').split('\n').find((l) => l.includes('"local scan ready"'))!).source as string;
    const saved = await state.latest(hostId, keyspace, 'versions');
    expect(saved?.status).not.toBe(COMPLETED);
    const midway = (await published()).length;
    expect(midway).toBeLessThan(OBJECTS);

    const second = start();
    await waitFor(
      'the pass to complete',
      async () => ((await state.latest(hostId, keyspace, 'versions'))?.status === COMPLETED ? true : undefined),
      120_000,
      500,
    );
    const all = await published();
    const keysSeen = all.map((m) => VersionCandidate.fromMessage(m.value).key);
    expect(keysSeen.sort()).toEqual([...keys].sort());
    expect(all.every((m) => VersionCandidate.fromMessage(m.value).sourceHost === hostId)).toBe(true);
    expect(await readTopic(stackEnv().kafkaBrokers, cluster, 'versions')).toHaveLength(OBJECTS);
    expect(second.output.join('')).toMatch(/"table":"versions".*"resumed":true.*"msg":"scan pass completed"/);
    await second.stop();
  });
});
