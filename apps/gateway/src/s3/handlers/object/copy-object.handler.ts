import { Inject, Injectable } from '@nestjs/common';
import { evaluateCopySourcePreconditions, isoDate, parseCopySource, S3Error, toXml } from '@ostore/s3/protocol';
import type { BucketsService, ObjectsService } from '@ostore/s3/core';
import { AccessControl } from '../../access';
import { checkExpectedBucketOwner } from '../../request-checks';
import { BUCKETS_SERVICE, OBJECTS_SERVICE } from '../../services';
import { metaFromHeaders, objectOwnerOf, writtenVersionId } from '../../object-http';
import { readSmallBody, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';
import { copyReencrypted, sharesStoredBytes } from './copy-encryption';

/** Reads the copy source as the requester would GET it (existence, the source bucket's policy and ACLs, x-amz-copy-source-if-*). */
export async function checkCopySource(req: S3Request, buckets: BucketsService, objects: ObjectsService, access: AccessControl) {
  const source = parseCopySource(req.header('x-amz-copy-source')!);
  const sourceBucket = await buckets.get(source.bucket);
  checkExpectedBucketOwner(req.header('x-amz-source-expected-bucket-owner'), sourceBucket.owner.id);
  const version = await objects.head(source.bucket, source.key, source.versionId);
  if (!(await access.mayReadCopySource(req, sourceBucket, source.key, source.versionId, version))) throw new S3Error('AccessDenied', 'Access Denied');
  const outcome = evaluateCopySourcePreconditions(
    {
      ifMatch: req.header('x-amz-copy-source-if-match'),
      ifNoneMatch: req.header('x-amz-copy-source-if-none-match'),
      ifModifiedSince: req.header('x-amz-copy-source-if-modified-since'),
      ifUnmodifiedSince: req.header('x-amz-copy-source-if-unmodified-since'),
    },
    { etag: version.etag, lastModified: version.lastModified },
  );
  if (outcome !== 'proceed') throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
  return { source, version };
}

@Injectable()
export class CopyObjectHandler implements S3Handler {
  readonly operation = 'CopyObject';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    await readSmallBody(req, 0);
    const { source, version } = await checkCopySource(req, this.buckets, this.objects, this.accessControl);
    const metadataDirective = (req.header('x-amz-metadata-directive') ?? 'COPY').toUpperCase();
    const taggingDirective = (req.header('x-amz-tagging-directive') ?? 'COPY').toUpperCase();
    if (metadataDirective !== 'COPY' && metadataDirective !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown metadata directive.', { extra: { ArgumentName: 'x-amz-metadata-directive', ArgumentValue: metadataDirective } });
    if (taggingDirective !== 'COPY' && taggingDirective !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown tagging directive.', { extra: { ArgumentName: 'x-amz-tagging-directive', ArgumentValue: taggingDirective } });
    const meta = metaFromHeaders(req);
    // the source opens with its key (x-amz-copy-source-server-side-encryption-customer-*), the copy is encrypted as asked
    const sourceEncryption = this.sse.forRead(req, version.meta.sse, true);
    const encryption = this.sse.forWrite(req);
    const shared = sharesStoredBytes(sourceEncryption, encryption);
    const sameObject = source.bucket === req.bucket && source.key === req.key && !source.versionId;
    const changesSomething = metadataDirective === 'REPLACE' || req.header('x-amz-storage-class') !== undefined || !shared;
    if (sameObject && !changesSomething) {
      throw new S3Error(
        'InvalidRequest',
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    const directives = { metadataDirective, taggingDirective } as { metadataDirective: 'COPY' | 'REPLACE'; taggingDirective: 'COPY' | 'REPLACE' };
    // conditional write on the destination (S3 since 2024): If-None-Match: * / If-Match, like PutObject
    const conditions = { ifNoneMatch: req.header('if-none-match'), ifMatch: req.header('if-match') };
    const result = shared
      ? await this.objects.copy({
          source: { ...source, versionId: version.versionId },
          bucket: req.target,
          key: req.key!,
          owner: objectOwnerOf(req),
          ...directives,
          ...conditions,
          meta,
        })
      : await copyReencrypted(req, this.objects, { version, source: sourceEncryption, destination: encryption, ...directives, ...conditions, meta });
    const headers: Record<string, string> = { ...(encryption?.headers ?? (shared ? sourceEncryption.headers : {})) };
    const versionId = writtenVersionId(req.bucketInfo!.versioning, result.versionId);
    if (versionId) headers['x-amz-version-id'] = versionId;
    if (source.versionId || version.versionId !== 'null') headers['x-amz-copy-source-version-id'] = result.sourceVersionId;
    sendXml(req, 200, toXml('CopyObjectResult', { LastModified: isoDate(result.lastModified), ETag: result.etag }), headers);
  }
}
