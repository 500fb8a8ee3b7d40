import { debugTiming } from '@ostore/lifecycle/rules';
import { S3Core } from '@ostore/s3/core';
import { CassandraLifecycleStore, LifecycleApplier } from '@ostore/s3/core/lifecycle';
import {
  abortAfter,
  alice,
  body,
  bucketWith,
  DAY_MS,
  drain,
  eodm,
  expireDays,
  get,
  history,
  noncurrentDays,
  pattern,
  put,
  refsOf,
  s3code,
  stack,
  Stack,
  toGlacier,
} from './support';

/**
 * The LifecycleApplier against the real Cassandra (fresh migrated keyspace): data written through
 * the S3 core like the gateway writes it, time moved with a FakeClock, one lifecycle day = 1 s.
 * Each action is checked through the S3 API afterwards (HEAD, GET, listings), and each race the
 * scheduler must survive is played between a "scan" (the candidate) and the apply.
 */
describe('LifecycleApplier on the real metastore', () => {
  let s: Stack;
  let sut: LifecycleApplier;
  let n = 0;
  const name = (p: string) => `${p}-${++n}`;

  beforeAll(async () => {
    s = await stack('applier');
    sut = await s.applier();
  });
  afterAll(() => s.close());

  const target = (b: { bucketId: string; name: string }, key: string, versionId: string) => ({
    bucketId: b.bucketId,
    bucket: b.name,
    key,
    versionId,
  });

  describe('each action', () => {
    it('Expiration in a versioned bucket: a delete marker, the version kept beneath it', async () => {
      const b = await bucketWith(s.core, name('ver'), 'Enabled', expireDays(2));
      const v = await put(s.core, b.name, 'logs/a.log', 'hello');
      s.clock.advance(2 * DAY_MS);

      const result = await sut.applyVersion(target(b, 'logs/a.log', v.versionId));

      expect(result).toMatchObject({ outcome: 'applied', action: 'expire-current', s3Action: 'Expiration', ruleId: 'expire' });
      expect(await s3code(s.core.objects.head(b.name, 'logs/a.log'))).toBe('NoSuchKey');
      expect(await history(s.core, b.name, 'logs/a.log')).toEqual([
        { versionId: result.markerVersionId, kind: 'M', latest: true },
        { versionId: v.versionId, kind: 'STANDARD', latest: false },
      ]);
      expect((await s.core.objects.list({ bucket: b.name, prefix: 'logs/', maxKeys: 10 })).contents).toEqual([]);
      expect((await get(s.core, b.name, 'logs/a.log', v.versionId)).toString()).toBe('hello');
    });

    it('Expiration in an unversioned bucket: the object is gone, its blocks released, usage reported', async () => {
      const b = await bucketWith(s.core, name('plain'), 'Unversioned', expireDays(1));
      await put(s.core, b.name, 'k', pattern(100_000));
      const blocks = await s.core.metastore.versions.readBlocks((await s.core.objects.head(b.name, 'k')).manifestId!);
      s.clock.advance(DAY_MS);
      s.usage.length = 0;

      expect(await sut.applyVersion(target(b, 'k', 'null'))).toMatchObject({ outcome: 'applied', markerVersionId: 'null' });

      expect(await s3code(s.core.objects.head(b.name, 'k'))).toBe('NoSuchKey');
      expect(await history(s.core, b.name, 'k')).toEqual([]);
      for (const blk of blocks) expect(await refsOf(s.client, blk.blockId)).toEqual([]);
      expect(s.usage).toEqual([{ bucketId: b.bucketId, bucket: b.name, kind: 'remove', bytes: -100_000, objects: -1, eventId: expect.stringMatching(/^rm:/) }]);
    });

    it('Expiration in a suspended bucket: a null delete marker replacing the null version', async () => {
      const b = await bucketWith(s.core, name('susp'), 'Enabled', expireDays(1));
      const kept = await put(s.core, b.name, 'k', 'versioned');
      await s.core.buckets.setVersioning(b.name, 'Suspended');
      await put(s.core, b.name, 'k', 'null one');
      s.clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', 'null'))).toMatchObject({ outcome: 'applied', markerVersionId: 'null' });

      expect(await history(s.core, b.name, 'k')).toEqual([
        { versionId: 'null', kind: 'M', latest: true },
        { versionId: kept.versionId, kind: 'STANDARD', latest: false },
      ]);
    });

    it('NoncurrentVersionExpiration: noncurrent versions deleted for good (blocks released), the current never', async () => {
      const b = await bucketWith(s.core, name('nc'), 'Enabled', noncurrentDays(1, 1));
      const v1 = await put(s.core, b.name, 'k', pattern(70_000, 1));
      const v2 = await put(s.core, b.name, 'k', 'two');
      const v3 = await put(s.core, b.name, 'k', 'three');
      const v1Blocks = await s.core.metastore.versions.readBlocks((await s.core.objects.head(b.name, 'k', v1.versionId)).manifestId!);
      s.clock.advance(5 * DAY_MS);

      // the current version under a noncurrent rule, and the one kept by NewerNoncurrentVersions
      expect(await sut.applyVersion(target(b, 'k', v3.versionId))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      expect(await sut.applyVersion(target(b, 'k', v2.versionId))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      expect(await sut.applyVersion(target(b, 'k', v1.versionId))).toMatchObject({
        outcome: 'applied',
        action: 'delete-version',
        s3Action: 'NoncurrentVersionExpiration',
      });

      expect((await history(s.core, b.name, 'k')).map((h) => h.versionId)).toEqual([v3.versionId, v2.versionId]);
      expect((await get(s.core, b.name, 'k')).toString()).toBe('three');
      for (const blk of v1Blocks) expect(await refsOf(s.client, blk.blockId)).toEqual([]);
    });

    it('ExpiredObjectDeleteMarker: a lone delete marker is removed, one hiding versions never', async () => {
      const b = await bucketWith(s.core, name('eodm'), 'Enabled', eodm + noncurrentDays(1));
      const v = await put(s.core, b.name, 'k', 'x');
      const marker = await s.core.objects.delete(b.name, 'k', alice);
      s.clock.advance(DAY_MS / 2);

      expect(await sut.applyVersion(target(b, 'k', marker.versionId!))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      expect((await history(s.core, b.name, 'k')).map((h) => h.kind)).toEqual(['M', 'STANDARD']);

      s.clock.advance(DAY_MS);
      expect(await sut.applyVersion(target(b, 'k', v.versionId))).toMatchObject({ outcome: 'applied', action: 'delete-version' });
      expect(await sut.applyVersion(target(b, 'k', marker.versionId!))).toMatchObject({
        outcome: 'applied',
        action: 'remove-delete-marker',
        s3Action: 'ExpiredObjectDeleteMarker',
      });
      expect(await history(s.core, b.name, 'k')).toEqual([]);
    });

    it('Transition: blocks copied to the cold tier, old ones released, the object readable, HEAD and listings say GLACIER', async () => {
      const b = await bucketWith(s.core, name('cold'), 'Enabled', toGlacier(1));
      const data = pattern(200_000, 7);
      const v = await put(s.core, b.name, 'big.bin', data);
      const before = await s.core.metastore.versions.readBlocks((await s.core.objects.head(b.name, 'big.bin')).manifestId!);
      s.clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'big.bin', v.versionId))).toMatchObject({
        outcome: 'applied',
        action: 'transition',
        storageClass: 'GLACIER',
      });

      const head = await s.core.objects.head(b.name, 'big.bin');
      expect(head.storageClass).toBe('GLACIER');
      expect(head.versionId).toBe(v.versionId);
      expect(head.etag).toBe((await s.core.objects.head(b.name, 'big.bin', v.versionId)).etag);
      expect((await drain(await s.core.objects.openBody(head))).equals(data)).toBe(true);
      expect((await drain(await s.core.objects.openBody(head, { start: 70_000, endInclusive: 140_000 }))).equals(data.subarray(70_000, 140_001))).toBe(
        true,
      );
      const after = await s.core.metastore.versions.readBlocks(head.manifestId!);
      expect(after.every((x) => x.tier === 'cold')).toBe(true);
      for (const blk of after) expect(await refsOf(s.client, blk.blockId)).toEqual([`v:${head.manifestId}`]);
      for (const blk of before) expect(await refsOf(s.client, blk.blockId)).toEqual([]);
      const listed = await s.core.objects.list({ bucket: b.name, maxKeys: 10 });
      expect(listed.contents.map((c) => [c.key, c.storageClass])).toEqual([['big.bin', 'GLACIER']]);
      expect(await history(s.core, b.name, 'big.bin')).toEqual([{ versionId: v.versionId, kind: 'GLACIER', latest: true }]);

      // applied again: nothing more to do
      expect(await sut.applyVersion(target(b, 'big.bin', v.versionId))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
    });

    it('Transition of a multipart object keeps its parts (partNumber GETs still work)', async () => {
      const b = await bucketWith(s.core, name('coldmp'), 'Enabled', toGlacier(1));
      const up = await s.core.multipart.create({ bucket: b.name, key: 'mp', owner: alice, meta: { userMeta: {} } });
      const p1 = pattern(110_000, 1); // 140 kB in all: over the 128 KiB transition minimum
      const p2 = pattern(30_000, 2);
      const e1 = await s.core.multipart.uploadPart({ bucket: b.name, key: 'mp', uploadId: up.uploadId, partNumber: 1, body: body(p1) });
      const e2 = await s.core.multipart.uploadPart({ bucket: b.name, key: 'mp', uploadId: up.uploadId, partNumber: 2, body: body(p2) });
      const done = await s.core.multipart.complete({
        bucket: b.name,
        key: 'mp',
        uploadId: up.uploadId,
        parts: [
          { partNumber: 1, etag: e1.etag },
          { partNumber: 2, etag: e2.etag },
        ],
      });
      s.clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'mp', done.versionId))).toMatchObject({ outcome: 'applied', storageClass: 'GLACIER' });

      const head = await s.core.objects.head(b.name, 'mp');
      expect(head).toMatchObject({ storageClass: 'GLACIER', partCount: 2 });
      expect((await drain(await s.core.objects.openBody(head, undefined, 2))).equals(p2)).toBe(true);
      expect((await drain(await s.core.objects.openBody(head))).equals(Buffer.concat([p1, p2]))).toBe(true);
    });

    it('AbortIncompleteMultipartUpload: parts and their blocks released, once', async () => {
      const b = await bucketWith(s.core, name('abort'), 'Enabled', abortAfter(2));
      const up = await s.core.multipart.create({ bucket: b.name, key: 'dir/big', owner: alice, meta: { userMeta: {} } });
      await s.core.multipart.uploadPart({ bucket: b.name, key: 'dir/big', uploadId: up.uploadId, partNumber: 1, body: body(pattern(80_000)) });
      const partBlocks = (await s.core.metastore.uploads.partRows(
        (await s.core.metastore.uploads.page(b.bucketId, 'dir/', {}, 1))[0].uploadId,
        1,
      ))[0].blocks;
      const t = { bucketId: b.bucketId, bucket: b.name, key: 'dir/big', uploadId: up.uploadId };
      s.clock.advance(DAY_MS);
      expect(await sut.applyUpload(t)).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      s.clock.advance(DAY_MS);

      expect(await sut.applyUpload(t)).toEqual({
        outcome: 'applied',
        action: 'abort-upload',
        ruleId: 'abort',
        s3Action: 'AbortIncompleteMultipartUpload',
      });
      expect((await s.core.multipart.listUploads({ bucket: b.name, maxUploads: 10 })).uploads).toEqual([]);
      for (const blk of partBlocks) expect(await refsOf(s.client, blk.blockId)).toEqual([]);
      expect(await sut.applyUpload(t)).toMatchObject({ outcome: 'skipped', reason: 'upload-gone' });
    });
  });

  describe('races between the scan and the apply', () => {
    it('an object overwritten since the scan survives (versioned and unversioned)', async () => {
      for (const versioning of ['Enabled', 'Unversioned'] as const) {
        const b = await bucketWith(s.core, name('over'), versioning, expireDays(1));
        const old = await put(s.core, b.name, 'k', 'old');
        s.clock.advance(DAY_MS); // the scan finds `old` due...
        await put(s.core, b.name, 'k', 'new'); // ...then the user writes the key again

        expect(await sut.applyVersion(target(b, 'k', old.versionId))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
        expect((await get(s.core, b.name, 'k')).toString()).toBe('new');
      }
    });

    it('a version restored since the scan (its delete marker removed) survives', async () => {
      const b = await bucketWith(s.core, name('restore'), 'Enabled', noncurrentDays(1));
      const v = await put(s.core, b.name, 'k', 'precious');
      const marker = await s.core.objects.delete(b.name, 'k', alice);
      s.clock.advance(DAY_MS); // the scan finds v noncurrent and due...
      await s.core.objects.delete(b.name, 'k', alice, marker.versionId); // ...the user restores it

      expect(await sut.applyVersion(target(b, 'k', v.versionId))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      expect((await get(s.core, b.name, 'k')).toString()).toBe('precious');
    });

    it('the same candidate applied by two schedulers at once: exactly one delete marker', async () => {
      const other = await s.applier();
      const b = await bucketWith(s.core, name('dup'), 'Enabled', expireDays(1));
      const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
      const versions = await Promise.all(keys.map((k) => put(s.core, b.name, k, k)));
      s.clock.advance(DAY_MS);

      const results = await Promise.all(
        keys.flatMap((k, i) => [sut, other, sut].map((a) => a.applyVersion(target(b, k, versions[i].versionId)))),
      );

      expect(results.filter((r) => r.outcome === 'applied')).toHaveLength(keys.length);
      for (const k of keys) expect((await history(s.core, b.name, k)).map((h) => h.kind)).toEqual(['M', 'STANDARD']);
    });

    it('candidates delivered twice and out of order change nothing more', async () => {
      const b = await bucketWith(s.core, name('order'), 'Enabled', expireDays(1) + noncurrentDays(2));
      const v = await put(s.core, b.name, 'k', 'x');
      s.clock.advance(DAY_MS);
      const scan1 = target(b, 'k', v.versionId); // Expiration of the current version
      expect(await sut.applyVersion(scan1)).toMatchObject({ outcome: 'applied', action: 'expire-current' });
      s.clock.advance(2 * DAY_MS);
      const scan2 = target(b, 'k', v.versionId); // later scan: v is noncurrent and due
      const state = async () => history(s.core, b.name, 'k');

      expect(await sut.applyVersion(scan2)).toMatchObject({ outcome: 'applied', action: 'delete-version' });
      const after = await state();
      expect(after.map((h) => h.kind)).toEqual(['M']);
      // redelivery of both, newest first
      expect(await sut.applyVersion(scan2)).toMatchObject({ outcome: 'skipped', reason: 'version-gone' });
      expect(await sut.applyVersion(scan1)).toMatchObject({ outcome: 'skipped', reason: 'version-gone' });
      expect(await state()).toEqual(after);
    });

    /**
     * A gateway PUT takes its vts when it commits, after storing the body: one that took it just
     * before the expiration's marker but lands after the applier's read would sort beneath the
     * marker. Played deterministically by landing it from inside the applier's store calls.
     */
    describe('a PUT whose vts precedes the marker but lands late', () => {
      const pendingPut = async (core: S3Core, bucket: string, key: string, data: string) => {
        const ids = core.store.newVid('object');
        return async () => {
          const stored = await core.blocks.writeStream(body(data));
          await core.store.commit({
            bucket: (await core.metastore.buckets.get(bucket))!,
            key,
            kind: 'object',
            isNull: false,
            owner: alice,
            blocks: stored.blocks,
            size: stored.size,
            etag: '"x"',
            vid: ids.vid,
          });
        };
      };
      const applierLanding = (at: 'claim' | 'commitMarker', land: () => Promise<void>) => {
        const store = new CassandraLifecycleStore(s.core);
        const original = store[at].bind(store) as (...a: unknown[]) => Promise<unknown>;
        (store as unknown as Record<string, unknown>)[at] = async (...args: unknown[]) => {
          if (at === 'claim') await land();
          const result = await original(...args);
          if (at === 'commitMarker') await land();
          return result;
        };
        return new LifecycleApplier(store, s.clock, { timing: debugTiming(DAY_MS) });
      };

      it.each([
        ['before the claim', 'claim'],
        ['right after the marker', 'commitMarker'],
      ] as const)('landing %s: the PUT stays current, no marker above it', async (_when, at) => {
        const b = await bucketWith(s.core, name('late'), 'Enabled', expireDays(1));
        const first = await put(s.core, b.name, 'k', 'first');
        s.clock.advance(DAY_MS);
        const land = await pendingPut(s.core, b.name, 'k', 'late');

        const result = await applierLanding(at, land).applyVersion(target(b, 'k', first.versionId));

        expect(result).toMatchObject({ outcome: 'skipped', reason: at === 'claim' ? 'not-due' : 'concurrent-write' });
        expect((await get(s.core, b.name, 'k')).toString()).toBe('late');
        expect((await history(s.core, b.name, 'k')).map((h) => h.kind)).toEqual(['STANDARD', 'STANDARD']);
        expect((await s.core.objects.list({ bucket: b.name, maxKeys: 5 })).contents.map((c) => c.key)).toEqual(['k']);
      });
    });

    it('a PUT racing the expiration is never lost under its marker', async () => {
      const b = await bucketWith(s.core, name('racing'), 'Enabled', expireDays(1));
      const keys = Array.from({ length: 12 }, (_, i) => `r${i}`);
      const firsts = await Promise.all(keys.map((k) => put(s.core, b.name, k, 'first')));
      s.clock.advance(DAY_MS);

      // every key: the expiration of `first` and a new PUT at the same moment
      await Promise.all(keys.flatMap((k, i) => [sut.applyVersion(target(b, k, firsts[i].versionId)), put(s.core, b.name, k, 'second')]));

      for (const k of keys) {
        const h = await history(s.core, b.name, k);
        // whatever the order, the second PUT is the current version (a marker may sit below it)
        expect(h[0]).toMatchObject({ kind: 'STANDARD', latest: true });
        expect((await get(s.core, b.name, k)).toString()).toBe('second');
        expect(h.filter((x) => x.kind === 'M').length).toBeLessThanOrEqual(1);
      }
    });
  });
});
