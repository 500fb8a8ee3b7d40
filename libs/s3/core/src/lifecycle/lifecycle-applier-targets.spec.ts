import type { BucketRow, UploadRow } from '@ostore/metastore/data-access';
import type { FakeClock } from '@ostore/shared/clock/testing';
import type { InMemoryLifecycleStore } from '../testing/in-memory-lifecycle.store';
import { encodeId, makeVid, uuidString } from '../version-ids';
import { LifecycleApplier, parseTargetId, s3ActionOf } from './lifecycle-applier';
import { abortAfter, DAY_MS, expireDays, lifecycle, newApplierFixture, rule, target } from './spec-support/applier-fixture';

describe(`${LifecycleApplier.name}: candidates and uploads`, () => {
  let clock: FakeClock;
  let store: InMemoryLifecycleStore;
  let sut: LifecycleApplier;

  beforeEach(() => {
    ({ clock, store, sut } = newApplierFixture());
  });

  describe('what the candidate names', () => {
    it('skips a bucket that is gone or was re-created', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      const v = store.put(b, 'k');
      clock.advance(DAY_MS);

      expect(await sut.applyVersion({ ...target(b, 'k', v), bucketId: '00000000-0000-4000-8000-999999999999' })).toEqual({
        outcome: 'skipped',
        reason: 'bucket-gone',
      });
      expect(await sut.applyVersion({ ...target(b, 'k', v), bucket: 'other' })).toMatchObject({ reason: 'bucket-gone' });
    });

    it('skips a bucket whose lifecycle configuration was deleted', async () => {
      const b = store.addBucket('ver', 'Enabled');
      const v = store.put(b, 'k');
      expect(await sut.applyVersion(target(b, 'k', v))).toEqual({ outcome: 'skipped', reason: 'no-lifecycle' });
    });

    it('skips versions that are gone or ids that are not ours', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(expireDays(1)));
      store.put(b, 'k');
      const gone = uuidString(makeVid(Date.now() * 1000));
      expect(await sut.applyVersion({ ...target(b, 'k', { isNull: false, vid: gone }) })).toMatchObject({ reason: 'version-gone' });
      expect(await sut.applyVersion({ ...target(b, 'k', { isNull: false, vid: gone }), versionId: 'nope' })).toMatchObject({
        reason: 'version-gone',
      });
    });

    it('accepts raw vids as well as S3 version ids', () => {
      const vid = uuidString(makeVid(1_700_000_000_000_000));
      expect(parseTargetId(vid)).toBe(vid);
      expect(parseTargetId(encodeId(vid))).toBe(vid);
      expect(parseTargetId('null')).toBe('null');
      expect(parseTargetId('x'.repeat(22))).toBeUndefined();
    });

    it('reads tags only when a rule filters on them, and decides by them', async () => {
      const b = store.addBucket(
        'ver',
        'Enabled',
        lifecycle(rule('<Expiration><Days>1</Days></Expiration>', '<Filter><Tag><Key>t</Key><Value>tmp</Value></Tag></Filter>')),
      );
      const keep = store.put(b, 'a', { tags: { t: 'keep' } });
      const tmp = store.put(b, 'b', { tags: { t: 'tmp' } });
      clock.advance(DAY_MS);

      expect((await sut.applyVersion(target(b, 'a', keep))).outcome).toBe('skipped');
      expect((await sut.applyVersion(target(b, 'b', tmp))).outcome).toBe('applied');
    });
  });

  describe('abort-upload', () => {
    const upload = (b: BucketRow, more: Partial<UploadRow> = {}): UploadRow => {
      const id = uuidString(makeVid(clock.nowMs() * 1000));
      const row: UploadRow = {
        bucketId: b.bucketId,
        parent: '',
        name: 'big',
        uploadId: id,
        initiated: clock.now(),
        ownerId: 'owner',
        ownerName: 'Owner',
        storageClass: 'STANDARD',
        meta: '{}',
        completed: false,
        ...more,
      };
      store.uploads.set(id, row);
      store.parts.set(id, 3);
      return row;
    };
    const uploadTarget = (b: BucketRow, u: UploadRow) => ({ bucketId: b.bucketId, bucket: b.name, key: 'big', uploadId: encodeId(u.uploadId) });

    it('aborts a due upload like AbortMultipartUpload, once', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(abortAfter(2)));
      const u = upload(b);
      clock.advance(2 * DAY_MS - 1);
      expect(await sut.applyUpload(uploadTarget(b, u))).toMatchObject({ outcome: 'skipped', reason: 'not-due' });
      clock.advance(1);

      expect(await sut.applyUpload(uploadTarget(b, u))).toEqual({
        outcome: 'applied',
        action: 'abort-upload',
        ruleId: 'r1',
        s3Action: 'AbortIncompleteMultipartUpload',
      });
      expect(store.uploads.has(u.uploadId)).toBe(false);
      expect(await sut.applyUpload(uploadTarget(b, u))).toMatchObject({ outcome: 'skipped', reason: 'upload-gone' });
      expect(store.calls).toEqual(['abort']);
    });

    it('leaves an upload being completed alone', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(abortAfter(1)));
      const u = upload(b, { completingVid: uuidString(makeVid(1)) });
      clock.advance(DAY_MS);
      expect(await sut.applyUpload(uploadTarget(b, u))).toMatchObject({ outcome: 'skipped', reason: 'upload-completing' });
      expect(store.uploads.has(u.uploadId)).toBe(true);
    });

    it('finishes an abort that died after removing the upload row', async () => {
      const b = store.addBucket('ver', 'Enabled', lifecycle(abortAfter(1)));
      const u = upload(b);
      store.uploads.delete(u.uploadId);
      expect(await sut.applyUpload(uploadTarget(b, u))).toMatchObject({ outcome: 'skipped', reason: 'upload-gone' });
      expect(store.calls).toEqual(['drop-parts:3']);
      expect(store.parts.has(u.uploadId)).toBe(false);
    });
  });

  it('labels actions with AWS element names', () => {
    expect(s3ActionOf({ kind: 'transition', reason: 'noncurrent-version-transition' })).toBe('NoncurrentVersionTransition');
    expect(s3ActionOf({ kind: 'abort-upload' })).toBe('AbortIncompleteMultipartUpload');
  });
});
