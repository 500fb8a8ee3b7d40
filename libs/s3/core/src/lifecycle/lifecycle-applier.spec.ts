import { debugTiming } from '@ostore/lifecycle/rules';
import type { BucketRow } from '@ostore/metastore/data-access';
import type { FakeClock } from '@ostore/shared/clock/testing';
import type { InMemoryLifecycleStore } from '../testing/in-memory-lifecycle.store';
import { encodeId } from '../version-ids';
import { LifecycleApplier } from './lifecycle-applier';
import { DAY_MS, eodm, expireDays, lifecycle, newApplierFixture, noncurrentDays, target, toGlacier } from './spec-support/applier-fixture';

describe(LifecycleApplier.name, () => {
  let clock: FakeClock;
  let store: InMemoryLifecycleStore;
  let sleeps: number[];
  let sut: LifecycleApplier;

  beforeEach(() => {
    ({ clock, store, sleeps, sut } = newApplierFixture());
  });
  const kinds = (bucket: BucketRow, key: string) =>
    store.rowsOf(bucket, key).map((r) => (r.isGhost ? 'ghost' : r.isDeleteMarker ? 'marker' : 'object') + (r.isNull ? ':null' : ''));

  describe('expire-current', () => {
    it('adds a delete marker in a versioned bucket, under a claim it releases', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(2)));
      const v = store.put(b, 'logs/a');
      clock.advance(2 * DAY_MS);

      const result = await sut.applyVersion(target(b, 'logs/a', v));

      expect(result).toMatchObject({ outcome: 'applied', action: 'expire-current', ruleId: 'r1', s3Action: 'Expiration' });
      const [marker, below] = store.rowsOf(b, 'logs/a');
      expect(marker).toMatchObject({ isDeleteMarker: true, isNull: false, ownerId: b.ownerId });
      expect(result.markerVersionId).toBe(encodeId(marker.vid));
      expect(below.vid).toBe(v.vid);
      expect(store.calls).toEqual(['claim', 'commit:marker', 'release']);
      expect(store.condOf(b, 'logs/a')).toBeUndefined();
    });

    it('replaces the null version with a ghost in an unversioned bucket (blocks released)', async () => {
      const b = store.addBucket('plain', 'Unversioned', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      const blocks = store.manifests.get(v.vid)!.map((x) => x.blockId);
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied', markerVersionId: 'null' });
      expect(kinds(b, 'k')).toEqual(['ghost:null']);
      expect(store.releasedBlocks).toEqual(blocks);
      // the null rows are converged over the one read beneath the ghost (no separate null_versions read)
      expect(store.calls).toEqual(['claim', 'commit:ghost:null', 'remove:version', 'release']);
    });

    it('takes its ghost back when a null PUT lands beneath it while it applies (unversioned)', async () => {
      const b = store.addBucket('plain', 'Unversioned', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      let late: { vid: string } | undefined;
      store.afterCommitMarker = (marker) => {
        late = store.put(b, 'k', { at: new Date(Math.floor(marker.vts / 1000) - 1) });
      };

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'skipped', reason: 'concurrent-write' });
      // the late PUT and the expired version are both still there (the late writer converges them)
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([late!.vid, v.vid]);
      expect(store.calls).toEqual(['claim', 'commit:ghost:null', 'remove:marker', 'reconcile', 'release']);
    });

    it('removes its own ghost when a newer null PUT lands above it (the newest null version wins)', async () => {
      const b = store.addBucket('plain', 'Unversioned', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      let fresh: { vid: string } | undefined;
      store.afterCommitMarker = () => {
        clock.advance(5);
        fresh = store.put(b, 'k');
      };

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied' });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([fresh!.vid]);
    });

    it('converges through null_versions when the key has more rows than the check reads', async () => {
      const b = store.addBucket('susp', 'Suspended', lifecycle(expireDays(1)));
      for (let i = 0; i < 20; i++) {
        store.put(b, 'k', { isNull: false });
        clock.advance(10);
      }
      const v = store.put(b, 'k', { isNull: true });
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied' });
      expect(kinds(b, 'k').slice(0, 2)).toEqual(['marker:null', 'object']);
      expect(store.rowsOf(b, 'k')).toHaveLength(21);
      expect(store.calls).toEqual(['claim', 'commit:marker:null', 'remove:version', 'converge', 'release']);
    });

    it('adds a null marker in a suspended bucket, removing the null version but not older versions', async () => {
      const b = store.addBucket('susp', 'Suspended', lifecycle(expireDays(1)));
      const old = store.put(b, 'k', { isNull: false });
      clock.advance(10);
      const v = store.put(b, 'k', { isNull: true });
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied' });
      expect(kinds(b, 'k')).toEqual(['marker:null', 'object']);
      expect(store.rowsOf(b, 'k')[1].vid).toBe(old.vid);
    });

    it('does nothing before the rule is due', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(2)));
      const v = store.put(b, 'k');
      clock.advance(2 * DAY_MS - 1);

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.calls).toEqual([]);
    });

    it('leaves an object overwritten since the scan alone (the candidate named the old current)', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(2)));
      const v = store.put(b, 'k');
      clock.advance(2 * DAY_MS);
      const fresh = store.put(b, 'k');

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([fresh.vid, v.vid]);
    });

    it('reads and decides again when the current version moves between its read and its claim', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(2)));
      const v = store.put(b, 'k');
      clock.advance(2 * DAY_MS);
      let fresh: { vid: string } | undefined;
      store.beforeClaim = (attempt) => {
        if (attempt === 0) fresh = store.put(b, 'k');
      };

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.calls).toEqual(['claim:changed']);
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([fresh!.vid, v.vid]);
    });

    it('takes its marker back when a write lands beneath it while it applies', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(2)));
      const v = store.put(b, 'k');
      clock.advance(2 * DAY_MS);
      let late: { vid: string } | undefined;
      store.afterCommitMarker = (marker) => {
        // a PUT whose vts was taken before the marker's, landing after the applier's read
        late = store.put(b, 'k', { at: new Date(Math.floor(marker.vts / 1000) - 1) });
      };

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'skipped', reason: 'concurrent-write' });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([late!.vid, v.vid]);
      expect(store.calls).toEqual(['claim', 'commit:marker', 'remove:marker', 'reconcile', 'release']);
    });

    it('applied twice, changes nothing the second time', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      await sut.applyVersion(target(b, 'k', v));
      const after = store.rowsOf(b, 'k');

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.rowsOf(b, 'k')).toEqual(after);
    });

    it('converges null rows a dead writer left, under its claim', async () => {
      const b = store.addBucket('plain', 'Unversioned', lifecycle(expireDays(1)));
      store.put(b, 'k');
      clock.advance(5);
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied' });
      expect(kinds(b, 'k')).toEqual(['ghost:null']);
      expect(store.calls.slice(0, 3)).toEqual(['claim', 'remove:version', 'converge']);
    });
  });

  describe('stale null rows (convergeStaleNulls)', () => {
    const key = (b: BucketRow, k: string) => ({ bucketId: b.bucketId, bucket: b.name, key: k });

    it('converges them in a bucket without lifecycle rules, under a claim it releases; then finds nothing to do', async () => {
      const b = store.addBucket('plain', 'Unversioned');
      const old = store.put(b, 'k');
      const blocks = store.manifests.get(old.vid)!.map((x) => x.blockId);
      clock.advance(5);
      const v = store.put(b, 'k');

      expect(await sut.convergeStaleNulls(key(b, 'k'))).toEqual({ outcome: 'applied', action: 'converge-nulls', s3Action: 'ConvergeNulls' });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([v.vid]);
      expect(store.releasedBlocks).toEqual(blocks);
      expect(store.calls).toEqual(['claim', 'remove:version', 'converge', 'release']);
      expect(store.condOf(b, 'k')).toBeUndefined();

      store.calls.length = 0;
      expect(await sut.convergeStaleNulls(key(b, 'k'))).toMatchObject({ outcome: 'skipped', reason: 'converged', s3Action: 'ConvergeNulls' });
      expect(store.calls).toEqual([]);
    });

    it('is skipped for a bucket that is gone or was re-created under its name', async () => {
      const b = store.addBucket('plain', 'Unversioned');
      store.put(b, 'k');
      store.put(b, 'k');
      expect(await sut.convergeStaleNulls({ ...key(b, 'k'), bucketId: '00000000-0000-4000-8000-000000000000' })).toMatchObject({
        outcome: 'skipped',
        reason: 'bucket-gone',
      });
      expect(store.rowsOf(b, 'k')).toHaveLength(2);
    });

    it('gives up as contended while the key stays claimed, having changed nothing', async () => {
      const b = store.addBucket('plain', 'Unversioned');
      store.put(b, 'k');
      store.put(b, 'k');
      store.busyClaims = 99;

      expect(await sut.convergeStaleNulls(key(b, 'k'))).toMatchObject({ outcome: 'skipped', reason: 'contended' });
      expect(sleeps).toEqual([10, 20, 40, 80]);
      expect(store.rowsOf(b, 'k')).toHaveLength(2);
    });
  });

  describe('claims', () => {
    it('backs off (doubling) while another claimant holds the key, then applies', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      store.busyClaims = 2;

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'applied' });
      expect(sleeps).toEqual([10, 20]);
    });

    it('gives up as contended after its attempts, having changed nothing', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      store.busyClaims = 99;

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'contended' });
      expect(sleeps).toEqual([10, 20, 40, 80]);
      expect(store.rowsOf(b, 'k')).toHaveLength(1);
    });

    it('releases its claim when acting fails, and lets the error through', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);
      store.afterCommitMarker = () => {
        throw new Error('write timeout');
      };

      await expect(sut.applyVersion(target(b, 'k', v))).rejects.toThrow('write timeout');
      expect(store.condOf(b, 'k')).toBeUndefined();
      expect(store.calls).toEqual(['claim', 'commit:marker', 'release']);
    });
  });

  describe('delete-version', () => {
    it('deletes a noncurrent version for good, never the current one', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(noncurrentDays(1)));
      const old = store.put(b, 'k');
      const cur = store.put(b, 'k');
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', cur))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(await sut.applyVersion(target(b, 'k', old))).toMatchObject({
        outcome: 'applied',
        action: 'delete-version',
        s3Action: 'NoncurrentVersionExpiration',
      });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([cur.vid]);
      expect(store.calls).toEqual(['claim', 'remove:version', 'repair-index', 'release']);
    });

    it('keeps a version restored since the scan (its delete marker removed)', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(noncurrentDays(1)));
      const v = store.put(b, 'k');
      const marker = store.put(b, 'k', { marker: true });
      clock.advance(DAY_MS);
      store.deleteRow(b, 'k', marker);

      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.rowsOf(b, 'k').map((r) => r.vid)).toEqual([v.vid]);
    });

    it('respects NewerNoncurrentVersions', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(noncurrentDays(1, 1)));
      const oldest = store.put(b, 'k');
      const older = store.put(b, 'k');
      store.put(b, 'k');
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', older))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(await sut.applyVersion(target(b, 'k', oldest))).toMatchObject({ outcome: 'applied' });
    });

    it('decides from every version it reads, even one beyond its read window', async () => {
      sut = new LifecycleApplier(store, clock, { timing: debugTiming(DAY_MS), maxVersions: 2 });
      const b = store.addBucket('ver', 'Enabled', lifecycle(noncurrentDays(1)));
      const oldest = store.put(b, 'k');
      store.put(b, 'k');
      store.put(b, 'k');
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', oldest))).toMatchObject({ outcome: 'applied' });
      expect(store.rowsOf(b, 'k')).toHaveLength(2);
    });
  });

  describe('remove-delete-marker', () => {
    it('removes a current delete marker that hides nothing', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(eodm));
      const m = store.put(b, 'k', { marker: true });

      expect(await sut.applyVersion(target(b, 'k', m))).toMatchObject({
        outcome: 'applied',
        action: 'remove-delete-marker',
        s3Action: 'ExpiredObjectDeleteMarker',
      });
      expect(store.rowsOf(b, 'k')).toEqual([]);
    });

    it('never removes a delete marker that still hides versions', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(eodm));
      store.put(b, 'k');
      const m = store.put(b, 'k', { marker: true });
      clock.advance(100 * DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', m))).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.rowsOf(b, 'k')).toHaveLength(2);
    });

    it('never removes a null marker above a stale null row (it would reappear)', async () => {
      const b = store.addBucket('susp', 'Suspended', lifecycle(eodm));
      store.put(b, 'k', { isNull: true });
      const m = store.put(b, 'k', { marker: true, isNull: true });

      expect((await sut.applyVersion(target(b, 'k', m))).outcome).toBe('skipped');
      expect(store.rowsOf(b, 'k').filter((r) => !r.isDeleteMarker)).toHaveLength(0);
      expect(kinds(b, 'k')).toEqual(['marker:null']);
    });
  });

  describe('transition', () => {
    it('moves the blocks to the cold tier and changes the storage class; then nothing more', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(toGlacier(1)));
      const v = store.put(b, 'k', { size: 1 << 20 });
      const oldBlock = store.manifests.get(v.vid)![0].blockId;
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({
        outcome: 'applied',
        action: 'transition',
        storageClass: 'GLACIER',
        s3Action: 'Transition',
      });
      expect(store.rowsOf(b, 'k')[0].storageClass).toBe('GLACIER');
      expect(store.manifests.get(v.vid)!.map((x) => x.tier)).toEqual(['cold']);
      expect(store.releasedBlocks).toEqual([oldBlock]);
      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'not-due' });
    });

    it('discards its copy when the key changed before the claim', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(toGlacier(1)));
      const v = store.put(b, 'k', { size: 1 << 20 });
      clock.advance(DAY_MS);
      store.beforeClaim = (attempt) => {
        if (attempt === 0) store.put(b, 'k', { size: 1 });
      };

      const result = await sut.applyVersion(target(b, 'k', v));

      // v is noncurrent now and only current versions transition under this rule
      expect(result).toEqual({ outcome: 'skipped', reason: 'not-due' });
      expect(store.discardedBlocks).toHaveLength(1);
      expect(store.rowsOf(b, 'k')[1].storageClass).toBe('STANDARD');
    });

    it('is skipped without a cold tier', async () => {
      sut = new LifecycleApplier(store, clock, { timing: debugTiming(DAY_MS) });
      const b = store.addBucket('ver', 'Enabled', lifecycle(toGlacier(1)));
      const v = store.put(b, 'k', { size: 1 << 20 });
      clock.advance(DAY_MS);

      expect(await sut.applyVersion(target(b, 'k', v))).toMatchObject({ outcome: 'skipped', reason: 'no-cold-tier', action: 'transition' });
      expect(store.calls).toEqual([]);
    });
  });
});
