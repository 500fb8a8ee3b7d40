import { COMPLETED, ScannedVersionRow } from '@ostore/lifecycle/scan';
import { UploadCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { S3Core } from '@ostore/s3/core';
import { createLifecycleApplier } from '@ostore/s3/core/lifecycle';
import { cassandraOptions, freshCluster, freshKeyspace, stackEnv } from '@ostore/testing';
import {
  alice,
  DAY,
  migrate,
  put,
  readTopic,
  rule,
  s3,
  sample,
  scannerOf,
  ScannerUnderTest,
  setLifecycle,
  tapped,
  withSource,
} from './support';

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const never = new AbortController().signal;

/**
 * The local scan against the real single-node stack: objects written through the S3 core (with a
 * fake clock for their times), candidates read back from Kafka.
 */
describe('local scan (Cassandra + Kafka)', () => {
  const env = () => stackEnv();
  let keyspace: string;
  let core: S3Core;
  let db: CassandraClient;
  let clock: FakeClock;
  const scanners: ScannerUnderTest[] = [];

  beforeAll(async () => {
    keyspace = freshKeyspace('scan');
    await migrate(cassandraOptions(keyspace));
    clock = new FakeClock(T0);
    ({ core, db } = await s3(cassandraOptions(keyspace), clock));
  });
  afterAll(async () => {
    await Promise.all(scanners.map((s) => s.close()));
    await db?.shutdown();
  });

  const scanner = async (cluster: string, more: Partial<Parameters<typeof scannerOf>[0]> = {}) => {
    const s = await scannerOf({
      options: cassandraOptions(keyspace),
      nodeAddress: env().cassandraHost,
      db,
      brokers: env().kafkaBrokers,
      cluster,
      clock,
      ...more,
    });
    scanners.push(s);
    return s;
  };

  const bucket = async (name: string, versioned: boolean) => {
    await core.buckets.create({ name, owner: alice, location: 'us-east-1', acl: 'private' });
    if (versioned) await core.buckets.setVersioning(name, 'Enabled');
  };

  it('finds what the rules make due and publishes it to the partition of its host, in both queues', async () => {
    clock.set(T0);
    await bucket('scan-story', true);
    await setLifecycle(
      core,
      'scan-story',
      rule('exp', 'expire1/', '<Expiration><Days>1</Days></Expiration>') +
        rule('nc', 'nc/', '<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration>') +
        rule('dm', 'dm/', '<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>') +
        rule('mpu', 'mpu/', '<AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>') +
        rule('late', 'late/', '<Expiration><Days>5</Days></Expiration>'),
    );
    const a = await put(core, 'scan-story', 'expire1/a');
    const b = await put(core, 'scan-story', 'expire1/deep/b');
    await put(core, 'scan-story', 'keep/c');
    await put(core, 'scan-story', 'late/d');
    const nc: string[] = [];
    for (let i = 0; i < 3; i++) {
      nc.push((await put(core, 'scan-story', 'nc/obj', `v${i}`)).versionId);
      clock.advance(1000);
    }
    const gone = await put(core, 'scan-story', 'dm/x');
    const marker = await core.objects.delete('scan-story', 'dm/x', alice);
    await core.objects.delete('scan-story', 'dm/x', alice, gone.versionId);
    const upload = await core.multipart.create({ bucket: 'scan-story', key: 'mpu/big', owner: alice, meta: { userMeta: {} } });
    await core.multipart.create({ bucket: 'scan-story', key: 'young/mpu', owner: alice, meta: { userMeta: {} } });

    clock.set(T0 + 3 * DAY);
    const cluster = freshCluster('story');
    const sut = await scanner(cluster, { settings: { hostIndex: 2 } });
    const versions = await sut.scanner.run(sut.tasks.get('versions')!, sut.spans, never);
    const uploads = await sut.scanner.run(sut.tasks.get('uploads')!, sut.spans, never);
    expect(versions.outcome).toBe('completed');
    expect(uploads.outcome).toBe('completed');

    const vmsgs = await readTopic(env().kafkaBrokers, cluster, 'versions');
    expect(new Set(vmsgs.map((m) => m.partition))).toEqual(new Set([2]));
    const byKey = Object.fromEntries(
      vmsgs.map((m) => VersionCandidate.fromMessage(m.value)).map((c) => [c.key, c]),
    );
    expect(Object.keys(byKey).sort()).toEqual(['dm/x', 'expire1/a', 'expire1/deep/b', 'nc/obj']);
    expect(byKey['expire1/a'].versions).toEqual([{ versionId: a.versionId, rules: [{ ruleId: 'exp', action: 'Expiration' }] }]);
    expect(byKey['expire1/deep/b']).toMatchObject({ parent: 'expire1/deep/', name: 'b', bucket: 'scan-story', sourceHost: sut.hostId });
    expect(byKey['expire1/deep/b'].versions[0].versionId).toBe(b.versionId);
    // NewerNoncurrentVersions=1: the newest noncurrent version stays, the oldest one goes
    expect(byKey['nc/obj'].versions).toEqual([{ versionId: nc[0], rules: [{ ruleId: 'nc', action: 'NoncurrentVersionExpiration' }] }]);
    expect(byKey['dm/x'].versions).toEqual([
      { versionId: marker.versionId, rules: [{ ruleId: 'dm', action: 'ExpiredObjectDeleteMarker' }] },
    ]);

    const umsgs = await readTopic(env().kafkaBrokers, cluster, 'uploads');
    expect(umsgs.map((m) => m.partition)).toEqual([2]);
    expect(UploadCandidate.fromMessage(umsgs[0].value)).toEqual({
      bucketId: (await core.buckets.get('scan-story')).bucketId,
      bucket: 'scan-story',
      key: 'mpu/big',
      uploadId: upload.uploadId,
      ruleId: 'mpu',
    });

    const state = await sut.state.latest(sut.hostId, keyspace, 'versions');
    expect(state).toMatchObject({ status: COMPLETED, ts: new Date(T0 + 3 * DAY) });
    expect(state!.stat).toMatchObject({ candidates: 4, objects: 6 });
    expect(await sample(sut.registry, 'ostore_scanner_candidates_published_total', 'queue="versions"')).toBe(4);
    expect(await sample(sut.registry, 'ostore_scanner_candidates_published_total', 'queue="uploads"')).toBe(1);
    expect(await sample(sut.registry, 'ostore_scanner_versions_scanned_total')).toBe(versions.stats.rows);
  });

  it('counts overdue versions per bucket once a pass completes', async () => {
    clock.set(T0);
    await bucket('scan-overdue', false);
    await bucket('scan-fresh', false);
    await setLifecycle(core, 'scan-overdue', rule('exp', '', '<Expiration><Days>1</Days></Expiration>'));
    await setLifecycle(core, 'scan-fresh', rule('exp', '', '<Expiration><Days>30</Days></Expiration>'));
    for (let i = 0; i < 6; i++) {
      await put(core, 'scan-overdue', `o${i}`);
      await put(core, 'scan-fresh', `f${i}`);
    }
    clock.set(T0 + 4 * DAY); // due on day 2 (midnight after T0 + 1 day), 2 days late > 1 day of grace
    const sut = await scanner(freshCluster('overdue'));
    expect(await sample(sut.registry, 'ostore_lifecycle_overdue_versions', 'bucket="scan-overdue"')).toBeUndefined();
    await sut.scanner.run(sut.tasks.get('versions')!, sut.spans, never);
    expect(await sample(sut.registry, 'ostore_lifecycle_overdue_versions', 'bucket="scan-overdue"')).toBe(6);
    expect(await sample(sut.registry, 'ostore_lifecycle_overdue_versions', 'bucket="scan-fresh"')).toBe(0);
  });

  it('keeps the current version and the 100 newest noncurrent ones, and leaves the rest of a long history unread', async () => {
    clock.set(T0);
    await bucket('scan-cap', true);
    await setLifecycle(
      core,
      'scan-cap',
      rule('nc', '', '<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration>'),
    );
    for (let i = 0; i < 250; i++) {
      await put(core, 'scan-cap', 'hot', `v${i}`);
      clock.advance(1000);
    }
    await put(core, 'scan-cap', 'later');
    clock.set(T0 + 3 * DAY);
    const listed = (await core.objects.listVersions({ bucket: 'scan-cap', prefix: 'hot', maxKeys: 1000 })).versions;
    expect(listed).toHaveLength(250);
    const cluster = freshCluster('cap');
    const sut = await scanner(cluster, { settings: { fetchSize: 120 } });
    const capId = (await core.buckets.get('scan-cap')).bucketId;
    // distinct rows of 'hot' the scan read (a page read again after a timeout under load counts once)
    const hot = new Set<string>();
    const task = sut.tasks.get('versions')!;
    const counted = withSource(
      task,
      tapped(task.source, (rows: ScannedVersionRow[]) => {
        for (const r of rows) if (r.bucketId === capId && r.name === 'hot') hot.add(r.vid);
      }),
    );
    const result = await sut.scanner.run(counted, sut.spans, never);
    expect(result.outcome).toBe('completed');

    const [candidate, ...others] = (await readTopic(env().kafkaBrokers, cluster, 'versions'))
      .map((m) => VersionCandidate.fromMessage(m.value))
      .filter((c) => c.bucket === 'scan-cap');
    expect(others).toEqual([]);
    expect(candidate.key).toBe('hot');
    // the window: listed[0] is current, listed[1..100] noncurrent; the 5 newest noncurrent ones stay
    expect(candidate.versions.map((v) => v.versionId)).toEqual(listed.slice(6, 101).map((v) => v.versionId));
    // the skip past 'hot' is issued after the page in which its window (current + 100) overflows:
    // that page may begin anywhere (other buckets' partitions can come first in token order), so at
    // most one page of rows past the window's 101 is read, and the rest of the history never
    const window = 101;
    expect(hot.size).toBeGreaterThan(window);
    expect(hot.size).toBeLessThanOrEqual(window + 120);
    expect(hot.size).toBeLessThan(listed.length);
  });

  it('stops mid-pass and a restarted scanner continues where it stopped: every due object exactly once', async () => {
    // a keyspace of its own, so that the stop falls in the middle of these 300 objects
    const ks = freshKeyspace('resume');
    await migrate(cassandraOptions(ks));
    const own = await s3(cassandraOptions(ks), clock);
    try {
      clock.set(T0);
      await own.core.buckets.create({ name: 'scan-resume', owner: alice, location: 'us-east-1', acl: 'private' });
      await setLifecycle(own.core, 'scan-resume', rule('exp', '', '<Expiration><Days>1</Days></Expiration>'));
      const keys: string[] = [];
      for (let d = 0; d < 30; d++) for (let o = 0; o < 10; o++) keys.push(`d${d}/o${o}`);
      for (let i = 0; i < keys.length; i += 25) await Promise.all(keys.slice(i, i + 25).map((k) => put(own.core, 'scan-resume', k)));
      clock.set(T0 + 3 * DAY);
      const cluster = freshCluster('resume');
      const at = { options: cassandraOptions(ks), db: own.db };

      const first = await scanner(cluster, { ...at, settings: { fetchSize: 40, checkpointMs: 60_000 } });
      const stop = new AbortController();
      let pages = 0;
      const task = first.tasks.get('versions')!;
      const stopping = withSource(task, tapped(task.source, () => ++pages === 4 && stop.abort()));
      const stopped = await first.scanner.run(stopping, first.spans, stop.signal);
      expect(stopped.outcome).toBe('stopped');
      expect(stopped.stats.rows).toBe(160);
      const saved = await first.state.latest(first.hostId, ks, 'versions');
      expect(saved?.status).not.toBe(COMPLETED);
      const before = (await readTopic(env().kafkaBrokers, cluster, 'versions')).map((m) => VersionCandidate.fromMessage(m.value).key);
      expect(before.length).toBeGreaterThan(100);
      expect(before.length).toBeLessThanOrEqual(160);

      const second = await scanner(cluster, { ...at, settings: { fetchSize: 40 } });
      const resumed = await second.scanner.run(second.tasks.get('versions')!, second.spans, never);
      expect(resumed).toMatchObject({ outcome: 'completed', resumed: true });
      expect(resumed.stats).toMatchObject({ resumes: 1, objects: 300, candidates: 300 });
      const all = (await readTopic(env().kafkaBrokers, cluster, 'versions')).map((m) => VersionCandidate.fromMessage(m.value).key);
      expect(all.sort()).toEqual([...keys].sort());
      expect((await second.state.latest(second.hostId, ks, 'versions'))?.status).toBe(COMPLETED);
    } finally {
      await own.db.shutdown();
    }
  });
  it('finds the stale null rows failed convergences left in a bucket without rules; the scheduler converges them for good', async () => {
    const ks = freshKeyspace('stale');
    await migrate(cassandraOptions(ks));
    const own = await s3(cassandraOptions(ks), clock);
    try {
      clock.set(T0);
      await own.core.buckets.create({ name: 'stale-nulls', owner: alice, location: 'us-east-1', acl: 'private' });
      const { bucketId } = await own.core.buckets.get('stale-nulls');
      await put(own.core, 'stale-nulls', 'd/deleted', 'old body');
      await put(own.core, 'stale-nulls', 'd/overwritten', 'first');
      await put(own.core, 'stale-nulls', 'd/fine', 'x');
      // the convergence reads of the next two writes fail, as on a Cassandra error: each writer only logs it
      const versions = own.core.metastore.versions;
      const nullRows = versions.nullRows;
      let failed = 0;
      versions.nullRows = async () => {
        failed++;
        throw new Error('read timeout (injected)');
      };
      try {
        clock.advance(1000);
        await own.core.objects.delete('stale-nulls', 'd/deleted', alice);
        await put(own.core, 'stale-nulls', 'd/overwritten', 'second');
      } finally {
        versions.nullRows = nullRows;
      }
      expect(failed).toBe(2);
      const rowsOf = (name: string) => versions.newest(bucketId, 'd/', name, 10);
      const kinds = async (name: string) => (await rowsOf(name)).map((r) => (r.isGhost ? 'ghost' : r.size));
      // the deleted object's row lies beneath its ghost: served again once the ghost's TTL runs out
      expect(await kinds('deleted')).toEqual(['ghost', 8]);
      expect(await kinds('overwritten')).toEqual([6, 5]);
      expect(await kinds('fine')).toEqual([1]);

      const cluster = freshCluster('stale');
      const sut = await scanner(cluster, { options: cassandraOptions(ks), db: own.db });
      expect((await sut.scanner.run(sut.tasks.get('versions')!, sut.spans, never)).outcome).toBe('completed');
      const candidates = (await readTopic(env().kafkaBrokers, cluster, 'versions')).map((m) => VersionCandidate.fromMessage(m.value));
      expect(candidates.map((c) => ({ key: c.key, versions: c.versions, staleNulls: c.staleNulls })).sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: 'd/deleted', versions: [], staleNulls: true },
        { key: 'd/overwritten', versions: [], staleNulls: true },
      ]);
      expect(await sample(sut.registry, 'ostore_scanner_stale_null_keys_total')).toBe(2);

      const applier = createLifecycleApplier(own.core, clock);
      for (const c of candidates) expect(await applier.convergeStaleNulls(c)).toMatchObject({ outcome: 'applied', s3Action: 'ConvergeNulls' });
      // only the ghost is left of the deleted object (nothing to come back), only the newest write of the other
      expect(await kinds('deleted')).toEqual(['ghost']);
      expect(await kinds('overwritten')).toEqual([6]);
      await expect(own.core.objects.head('stale-nulls', 'd/deleted')).rejects.toMatchObject({ code: 'NoSuchKey' });
      for (const c of candidates) expect(await applier.convergeStaleNulls(c)).toMatchObject({ outcome: 'skipped', reason: 'converged' });
    } finally {
      await own.db.shutdown();
    }
  });
});
