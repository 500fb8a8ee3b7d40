import { Readable } from 'stream';
import { ScannedVersionRow } from '@ostore/lifecycle/scan';
import { UploadsRepository } from '@ostore/metastore/data-access';
import { S3Core } from '@ostore/s3/core';
import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { cutOf } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { cassandraOptions, freshCluster, freshKeyspace, stackEnv } from '@ostore/testing';
import { alice, DAY, migrate, put, s3, scannerOf, ScannerUnderTest, tapped, withSource } from './support';

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const never = new AbortController().signal;

/** What an exact recount of a bucket through the S3 core finds written before `cutMs`. */
async function recount(core: S3Core, db: CassandraClient, bucket: string, cutMs: number, uploadIds: string[] = []) {
  let bytes = 0;
  let objects = 0;
  let versions = 0;
  let deleteMarkers = 0;
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  for (;;) {
    const page = await core.objects.listVersions({ bucket, maxKeys: 1000, keyMarker, versionIdMarker });
    for (const v of page.versions) {
      if (v.lastModified.getTime() >= cutMs) continue;
      bytes += v.size;
      if (v.isDeleteMarker) deleteMarkers++;
      else versions++;
      if (v.isLatest && !v.isDeleteMarker) objects++;
    }
    if (!page.isTruncated) break;
    ({ nextKeyMarker: keyMarker, nextVersionIdMarker: versionIdMarker } = page);
  }
  let uploadBytes = 0;
  for (const id of uploadIds)
    for await (const p of new UploadsRepository(db).allPartRows(id)) if (p.lastModified.getTime() < cutMs) uploadBytes += p.size;
  return { bytes: bytes + uploadBytes, objects, versions, deleteMarkers, uploadBytes };
}

/**
 * Scan snapshots against the real stack: a pass counts every bucket into scan_state's `stat` and,
 * once completed, into `host_snapshots`; the numbers equal an exact recount through the S3 core.
 */
describe('scan snapshots (Cassandra + Kafka)', () => {
  const env = () => stackEnv();
  const open: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const o of open.reverse()) await o.close();
  });

  const setup = async (name: string) => {
    const ks = freshKeyspace(name);
    await migrate(cassandraOptions(ks));
    const clock = new FakeClock(T0);
    const { core, db } = await s3(cassandraOptions(ks), clock);
    open.push({ close: () => db.shutdown() });
    const scanner = async (settings: Parameters<typeof scannerOf>[0]['settings'] = {}): Promise<ScannerUnderTest> => {
      const s = await scannerOf({ options: cassandraOptions(ks), nodeAddress: env().cassandraHost, db, brokers: env().kafkaBrokers, cluster: freshCluster(name), clock, settings });
      open.push(s);
      return s;
    };
    return { ks, clock, core, db, scanner, store: new SnapshotStore(db, clock) };
  };

  it('counts every bucket as written before its cut, including parts of incomplete uploads, as a recount does', async () => {
    const { ks, clock, core, db, scanner, store } = await setup('snap');
    await core.buckets.create({ name: 'snap-v', owner: alice, location: 'us-east-1', acl: 'private' });
    await core.buckets.setVersioning('snap-v', 'Enabled');
    await core.buckets.create({ name: 'snap-u', owner: alice, location: 'us-east-1', acl: 'private' });
    for (let i = 0; i < 12; i++) {
      clock.set(T0 + i * 1000);
      await put(core, 'snap-v', `dir${i % 3}/k${i}`, 'v'.repeat(10 + i));
      await put(core, 'snap-v', `dir${i % 3}/k${i}`, 'w'.repeat(100 + i));
      await put(core, 'snap-u', `flat-${i}`, 'u'.repeat(i + 1));
      await put(core, 'snap-u', `flat-${i}`, 'U'.repeat(2 * i + 1));
    }
    await core.objects.delete('snap-v', 'dir0/k0', alice);
    // a long history: the scan reads its window and skips the rest, the snapshot still counts every version
    for (let i = 0; i < 110; i++) {
      clock.set(T0 + 20_000 + i * 1000);
      await put(core, 'snap-v', 'hot', 'h'.repeat(i % 5));
    }
    const upload = await core.multipart.create({ bucket: 'snap-u', key: 'big', owner: alice, meta: { userMeta: {} } });
    for (const n of [1, 2]) await core.multipart.uploadPart({ bucket: 'snap-u', key: 'big', uploadId: upload.uploadId, partNumber: n, body: Readable.from([Buffer.alloc(1000 * n)]) });

    const passStart = T0 + DAY + 7 * 60_000;
    const cut = cutOf(passStart);
    // written after the cut but before the pass: read by it, left to the deltas
    clock.set(passStart - 60_000);
    await put(core, 'snap-v', 'after-cut/seen', 'seen');
    clock.set(passStart);
    const s = await scanner({ fetchSize: 5 });
    const task = s.tasks.get('versions')!;
    let pages = 0;
    // writes while the pass runs: after the cut, so every one of them is left to the deltas, read or not
    const during = withSource(task, tapped<ScannedVersionRow>(task.source, () => void (++pages === 2 && late.push(put(core, 'snap-v', 'zz/late', 'late')))));
    const late: Promise<unknown>[] = [];
    expect((await s.scanner.run(during, s.spans, never)).outcome).toBe('completed');
    await Promise.all(late);
    expect((await s.scanner.run(s.tasks.get('uploads')!, s.spans, never)).outcome).toBe('completed');

    const hosts = await store.hostSnapshots(ks);
    expect(hosts.map((h) => `${h.source}/${h.handler}`).sort()).toEqual([`${s.hostId}/uploads`, `${s.hostId}/versions`]);
    const versions = hosts.find((h) => h.handler === 'versions')!.snapshot;
    const uploads = hosts.find((h) => h.handler === 'uploads')!.snapshot;
    expect(versions.cutMs).toBe(cut);
    const v = (await core.buckets.get('snap-v')).bucketId;
    const u = (await core.buckets.get('snap-u')).bucketId;
    const exactV = await recount(core, db, 'snap-v', cut);
    expect(exactV).toMatchObject({ objects: 12, versions: 24 + 110, deleteMarkers: 1 });
    expect(versions.buckets[v]).toMatchObject({ name: 'snap-v', ...exactV, uploadBytes: 0 });
    expect(versions.buckets[v].newer.versions).toBeGreaterThanOrEqual(1);
    expect(versions.buckets[v].topByVersions[0]).toEqual({ name: 'hot', n: 110 });
    expect(versions.buckets[v].anomalies.objectsOver100Versions).toBe(1);
    expect(versions.buckets[v].topDirectories.map((d) => [d.name, d.n])).toEqual([['dir1/', 4], ['dir2/', 4], ['dir0/', 3], ['', 1]]);
    expect(versions.buckets[v].topBySize.slice(0, 2)).toEqual([{ name: 'hot', n: 220 }, { name: 'dir2/k11', n: 21 + 111 }]);
    const uploadRows = await db.execute(`SELECT upload_id FROM uploads WHERE bucket_id = ? AND parent = '' AND name = 'big'`, [u]);
    const exactU = await recount(core, db, 'snap-u', cut, uploadRows.rows.map((r) => String(r['upload_id'])));
    expect(exactU.uploadBytes).toBe(3000);
    expect(versions.buckets[u].bytes + uploads.buckets[u].bytes).toBe(exactU.bytes);
    expect(versions.buckets[u]).toMatchObject({ objects: exactU.objects, versions: exactU.versions });
    expect(uploads.buckets[u]).toMatchObject({ uploads: 1, uploadBytes: 3000 });
    // the pass's counters sit in scan_state too (seed 000's shape), status `completed`
    const state = await s.state.latest(s.hostId, ks, 'versions');
    expect(state?.status).toBe('completed');
    expect(state?.stat.usage?.buckets[v].bytes).toBe(exactV.bytes);
  });

  it('a pass stopped mid-scan resumes from the saved key and counts each version once', async () => {
    const { ks, clock, core, db, scanner, store } = await setup('snapresume');
    await core.buckets.create({ name: 'snap-r', owner: alice, location: 'us-east-1', acl: 'private' });
    await core.buckets.setVersioning('snap-r', 'Enabled');
    const keys: string[] = [];
    for (let d = 0; d < 20; d++) for (let o = 0; o < 10; o++) keys.push(`d${String(d).padStart(2, '0')}/o${o}`);
    for (let i = 0; i < keys.length; i += 25)
      await Promise.all(keys.slice(i, i + 25).map(async (k, j) => {
        await put(core, 'snap-r', k, 'a'.repeat(1 + ((i + j) % 7)));
        if ((i + j) % 3 === 0) await put(core, 'snap-r', k, 'b'.repeat(20));
      }));
    clock.set(T0 + DAY);
    const first = await scanner({ fetchSize: 30, checkpointMs: 0 });
    const stop = new AbortController();
    let pages = 0;
    const task = first.tasks.get('versions')!;
    const stopped = await first.scanner.run(withSource(task, tapped(task.source, () => ++pages === 4 && stop.abort())), first.spans, stop.signal);
    expect(stopped.outcome).toBe('stopped');
    expect(await store.hostSnapshots(ks)).toEqual([]);

    const second = await scanner({ fetchSize: 30 });
    const resumed = await second.scanner.run(second.tasks.get('versions')!, second.spans, never);
    expect(resumed).toMatchObject({ outcome: 'completed', resumed: true, stats: { resumes: 1, objects: 200 } });
    const [host] = await store.hostSnapshots(ks);
    const b = (await core.buckets.get('snap-r')).bucketId;
    const exact = await recount(core, db, 'snap-r', host.snapshot.cutMs);
    expect(exact.versions).toBe(200 + 67);
    expect(host.snapshot.buckets[b]).toMatchObject(exact);
    expect(host.snapshot.buckets[b].topDirectories).toHaveLength(10);
    expect(host.snapshot.buckets[b].topDirectories.every((d) => d.n === 10)).toBe(true);
  });

  it('keeps the first completed pass of a cut: a later pass at the same cut, which misses a removal since the cut, does not replace it', async () => {
    const { ks, clock, core, scanner, store } = await setup('snapfirst');
    await core.buckets.create({ name: 'snap-f', owner: alice, location: 'us-east-1', acl: 'private' });
    await put(core, 'snap-f', 'a', 'a'.repeat(10));
    await put(core, 'snap-f', 'b', 'b'.repeat(20));
    const bucketId = (await core.buckets.get('snap-f')).bucketId;
    const s = await scanner();
    const pass = async (startMs: number) => {
      clock.set(startMs);
      expect((await s.scanner.run(s.tasks.get('versions')!, s.spans, never)).outcome).toBe('completed');
      const [host] = await store.hostSnapshots(ks);
      return host;
    };
    const first = T0 + DAY + 6 * 60_000;
    const kept = await pass(first);
    expect(kept.snapshot.cutMs).toBe(cutOf(first));
    expect(kept.snapshot.buckets[bucketId]).toMatchObject({ bytes: 30, versions: 2 });
    // a removal after the cut of a version written before it: the next pass at the same cut misses it
    clock.set(first + 30_000);
    await core.objects.delete('snap-f', 'a', alice);
    expect(await pass(first + 60_000)).toEqual(kept);
    // a pass at the next cut replaces it
    const next = await pass(first + 5 * 60_000);
    expect(next.snapshot.cutMs).toBe(cutOf(first) + 5 * 60_000);
    expect(next.snapshot.buckets[bucketId]).toMatchObject({ bytes: 20, versions: 1 });
  });
});
