import { Readable } from 'stream';
import type { Metastore } from '@ostore/metastore/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { InMemoryBlockManager } from '@ostore/storage/blocks/testing';
import { S3DomainError } from './api';
import { createS3Core } from './s3-core';

describe('key validation', () => {
  // Any metastore access fails the test: a key is checked before the bucket is even read.
  const metastore = new Proxy({} as Metastore, {
    get: (_t, prop) => {
      throw new Error(`the metastore was used (${String(prop)}) before the key was checked`);
    },
  });
  const sut = createS3Core({ metastore, blocks: new InMemoryBlockManager(), clock: new FakeClock() });
  const owner = { id: 'o', displayName: 'O' };
  const long = 'k'.repeat(1025);
  const body = () => Readable.from([Buffer.from('x')]);

  const operations: [string, (key: string) => Promise<unknown>][] = [
    ['PutObject', (key) => sut.objects.put({ bucket: 'b', key, owner, body: body(), meta: { userMeta: {} } })],
    ['HeadObject', (key) => sut.objects.head('b', key)],
    ['DeleteObject', (key) => sut.objects.delete('b', key, owner)],
    ['DeleteObject (version)', (key) => sut.objects.delete('b', key, owner, 'null')],
    ['CopyObject', (key) => sut.objects.copy({ source: { bucket: 'b', key: 'src' }, bucket: 'b', key, owner, metadataDirective: 'COPY', meta: { userMeta: {} } })],
    ['GetObjectTagging', (key) => sut.objects.getTags('b', key)],
    ['PutObjectTagging', (key) => sut.objects.setTags('b', key, {})],
    ['DeleteObjectTagging', (key) => sut.objects.deleteTags('b', key)],
    ['PutObjectAcl', (key) => sut.objects.setAcl('b', key, 'private')],
    ['CreateMultipartUpload', (key) => sut.multipart.create({ bucket: 'b', key, owner, meta: { userMeta: {} } })],
    ['UploadPart', (key) => sut.multipart.uploadPart({ bucket: 'b', key, uploadId: 'u', partNumber: 1, body: body() })],
    ['UploadPartCopy', (key) => sut.multipart.uploadPartCopy({ bucket: 'b', key, uploadId: 'u', partNumber: 1, source: { bucket: 'b', key: 'src' } })],
    ['CompleteMultipartUpload', (key) => sut.multipart.complete({ bucket: 'b', key, uploadId: 'u', parts: [] })],
    ['AbortMultipartUpload', (key) => sut.multipart.abort('b', key, 'u')],
    ['ListParts', (key) => sut.multipart.listParts({ bucket: 'b', key, uploadId: 'u', maxParts: 10 })],
  ];

  it.each(operations)('%s refuses a key over 1024 bytes (KeyTooLongError) and an empty key', async (_name, call) => {
    await expect(call(long)).rejects.toMatchObject({ code: 'KeyTooLongError', extra: { Size: '1025', MaxSizeAllowed: '1024' } });
    await expect(call('')).rejects.toBeInstanceOf(S3DomainError);
    await expect(call('')).rejects.toMatchObject({ code: 'InvalidArgument' });
  });
});
