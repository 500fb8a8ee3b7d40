import type { PartRow } from '@ostore/metastore/data-access';
import { decodeId } from '../src/version-ids';
import { alice, bob, body, harness, Harness, pattern, put, refsOf, s3code } from './support';

describe('BucketsService and UsersService against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('buckets');
  });
  afterAll(() => h.close());

  describe('users', () => {
    it('creates users once and AWS-looking keys, and finds a key with its user', async () => {
      const sut = h.core.users;
      await sut.createUser({ id: 'u1', displayName: 'User One' });
      expect((await s3code(sut.createUser({ id: 'u1', displayName: 'again' }))).code).toBe('UserAlreadyExists');
      const key = await sut.createAccessKey('u1');
      expect(key.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
      expect(key.secretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
      const given = await sut.createAccessKey('u1', { accessKeyId: 'AKIAGIVEN0000000000X', secretAccessKey: 's'.repeat(40) });
      expect((await sut.findAccessKey(given.accessKeyId))?.key.secretAccessKey).toBe('s'.repeat(40));
      const found = await sut.findAccessKey(key.accessKeyId);
      expect(found?.user).toMatchObject({ id: 'u1', displayName: 'User One', disabled: false });
      expect(found?.key.secretAccessKey).toBe(key.secretAccessKey);
      expect((await sut.listAccessKeys('u1')).map((k) => k.accessKeyId).sort()).toEqual(
        [key.accessKeyId, given.accessKeyId].sort(),
      );
      expect((await sut.listAccessKeys('u1'))[0]).not.toHaveProperty('secretAccessKey');
      await sut.setAccessKeyDisabled(key.accessKeyId, true);
      await sut.setUserDisabled('u1', true);
      const again = await sut.findAccessKey(key.accessKeyId);
      expect(again?.key.disabled).toBe(true);
      expect(again?.user.disabled).toBe(true);
      expect(await sut.findAccessKey('AKIANOPE000000000000')).toBeUndefined();
      expect((await s3code(sut.createAccessKey('nobody'))).code).toBe('NoSuchUser');
      expect((await sut.listUsers()).map((u) => u.id)).toContain('u1');
    });
  });

  describe('buckets', () => {
    it('claims names globally and lists owned buckets', async () => {
      const sut = h.core.buckets;
      const b = await sut.create({ name: 'alpha-bucket', owner: alice, location: '', acl: 'private' });
      expect(b).toMatchObject({ name: 'alpha-bucket', versioning: 'Unversioned', acl: 'private', owner: alice });
      expect((await s3code(sut.create({ name: 'alpha-bucket', owner: bob, location: '', acl: 'private' }))).code).toBe(
        'BucketAlreadyExists',
      );
      // us-east-1 (or no location): the owner re-creating its bucket succeeds; elsewhere 409
      expect((await sut.create({ name: 'alpha-bucket', owner: alice, location: 'us-east-1', acl: 'private' })).bucketId).toBe(
        b.bucketId,
      );
      expect((await s3code(sut.create({ name: 'alpha-bucket', owner: alice, location: 'eu-west-1', acl: 'private' }))).code).toBe(
        'BucketAlreadyOwnedByYou',
      );
      await sut.create({ name: 'beta-bucket', owner: alice, location: 'eu-west-1', acl: 'public-read' });
      await sut.create({ name: 'bobs-bucket', owner: bob, location: '', acl: 'private' });
      expect((await sut.listOwned('alice')).map((x) => x.name)).toEqual(['alpha-bucket', 'beta-bucket']);
      expect((await sut.get('beta-bucket')).location).toBe('eu-west-1');
      expect((await s3code(sut.get('no-such-bucket'))).code).toBe('NoSuchBucket');
      expect((await s3code(sut.create({ name: 'Bad_Name', owner: bob, location: '', acl: 'private' }))).code).toBe(
        'InvalidBucketName',
      );
    });

    it('stores versioning, ACL, tags and lifecycle', async () => {
      const sut = h.core.buckets;
      await sut.create({ name: 'settings-bucket', owner: alice, location: '', acl: 'private' });
      await sut.setVersioning('settings-bucket', 'Enabled');
      await sut.setAcl('settings-bucket', 'public-read');
      expect(await sut.get('settings-bucket')).toMatchObject({ versioning: 'Enabled', acl: 'public-read' });
      await sut.setVersioning('settings-bucket', 'Suspended');
      expect((await sut.get('settings-bucket')).versioning).toBe('Suspended');

      expect((await s3code(sut.getTags('settings-bucket'))).code).toBe('NoSuchTagSet');
      await sut.setTags('settings-bucket', { team: 'storage', env: 'test' });
      expect(await sut.getTags('settings-bucket')).toEqual({ team: 'storage', env: 'test' });
      await sut.deleteTags('settings-bucket');
      expect((await s3code(sut.getTags('settings-bucket'))).code).toBe('NoSuchTagSet');

      expect((await s3code(sut.getLifecycle('settings-bucket'))).code).toBe('NoSuchLifecycleConfiguration');
      const xml = '<LifecycleConfiguration><Rule><ID>x</ID></Rule></LifecycleConfiguration>';
      await sut.setLifecycle('settings-bucket', xml);
      expect(await sut.getLifecycle('settings-bucket')).toBe(xml);
      await sut.deleteLifecycle('settings-bucket');
      expect((await s3code(sut.getLifecycle('settings-bucket'))).code).toBe('NoSuchLifecycleConfiguration');
      expect((await s3code(sut.setAcl('nope-bucket', 'private'))).code).toBe('NoSuchBucket');
    });

    it('deletes only an empty bucket: objects and delete markers count, uploads in progress are aborted', async () => {
      const sut = h.core.buckets;
      await sut.create({ name: 'del-bucket', owner: alice, location: '', acl: 'private' });
      await put(h.core, 'del-bucket', 'deep/dir/key', 'x');
      expect((await s3code(sut.delete('del-bucket'))).code).toBe('BucketNotEmpty');
      await h.core.objects.delete('del-bucket', 'deep/dir/key', alice);
      // the folder rows stay behind, but an empty tree is empty
      await sut.delete('del-bucket');
      expect((await s3code(sut.get('del-bucket'))).code).toBe('NoSuchBucket');
      expect((await sut.listOwned('alice')).map((x) => x.name)).not.toContain('del-bucket');

      await sut.create({ name: 'del-bucket', owner: alice, location: '', acl: 'private' });
      await sut.setVersioning('del-bucket', 'Enabled');
      await h.core.objects.delete('del-bucket', 'only-a-marker', alice);
      expect((await s3code(sut.delete('del-bucket'))).code).toBe('BucketNotEmpty');
      const versions = await h.core.objects.listVersions({ bucket: 'del-bucket', maxKeys: 10 });
      await h.core.objects.delete('del-bucket', 'only-a-marker', alice, versions.versions[0].versionId);
      // S3 deletes a bucket whose only contents are multipart uploads in progress, and them with it
      const upload = await h.core.multipart.create({ bucket: 'del-bucket', key: 'up/load', owner: alice, meta: { userMeta: {} } });
      await h.core.multipart.create({ bucket: 'del-bucket', key: 'no-parts', owner: alice, meta: { userMeta: {} } });
      await h.core.multipart.uploadPart({ bucket: 'del-bucket', key: 'up/load', uploadId: upload.uploadId, partNumber: 1, body: body(pattern(100 * 1024, 4)) });
      const parts: PartRow[] = [];
      for await (const r of h.ms.uploads.allPartRows(decodeId(upload.uploadId)!)) parts.push(r);
      const blockIds = parts.flatMap((p) => p.blocks.map((x) => x.blockId));
      expect(blockIds.length).toBeGreaterThan(0);
      for (const id of blockIds) expect(await refsOf(h.client, id)).not.toEqual([]);
      await sut.delete('del-bucket');
      expect((await s3code(sut.get('del-bucket'))).code).toBe('NoSuchBucket');
      for (const id of blockIds) expect(await refsOf(h.client, id)).toEqual([]);
      const after: PartRow[] = [];
      for await (const r of h.ms.uploads.allPartRows(decodeId(upload.uploadId)!)) after.push(r);
      expect(after).toEqual([]);
      expect((await s3code(sut.delete('del-bucket'))).code).toBe('NoSuchBucket');
      // a re-created bucket of that name has no uploads
      await sut.create({ name: 'del-bucket', owner: alice, location: '', acl: 'private' });
      expect((await h.core.multipart.listUploads({ bucket: 'del-bucket', maxUploads: 10 })).uploads).toEqual([]);
      await sut.delete('del-bucket');
    });
  });
});
