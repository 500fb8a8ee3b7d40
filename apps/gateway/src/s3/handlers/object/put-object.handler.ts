import { Inject, Injectable } from '@nestjs/common';
import type { ObjectsService } from '@ostore/s3/core';
import { Clock } from '@ostore/shared/clock';
import { OBJECTS_SERVICE } from '../../services';
import { expirationHeader } from '../../object-expiration';
import { announcedLength, bodyVerifier, contentMd5Of, metaFromHeaders, objectOwnerOf, requestedChecksums, writtenVersionId } from '../../object-http';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';

/**
 * PutObject: the body streams into blocks; size, Content-MD5 and checksums (header or aws-chunked
 * trailer) are verified before the version becomes visible, so a bad upload stores nothing.
 */
@Injectable()
export class PutObjectHandler implements S3Handler {
  readonly operation = 'PutObject';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly sse: ObjectEncryption,
    private readonly clock: Clock,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const size = announcedLength(req);
    const md5 = contentMd5Of(req);
    const checksums = requestedChecksums(req);
    const meta = metaFromHeaders(req);
    // SSE headers, else the bucket's default encryption: the body is sealed before it is stored
    const encryption = this.sse.forWrite(req);
    const result = await this.objects.put({
      bucket: req.target,
      key: req.key!,
      owner: objectOwnerOf(req),
      body: req.body,
      size,
      meta: encryption ? { ...meta, sse: encryption.sse } : meta,
      ...(encryption ? { encryption: { dataKey: encryption.dataKey, etag: encryption.etag } } : {}),
      checksumAlgorithms: checksums.algorithms,
      verify: bodyVerifier(req, size, md5, checksums),
      ifNoneMatch: req.header('if-none-match'),
      ifMatch: req.header('if-match'),
    });
    const headers: Record<string, string> = { ETag: result.etag, ...encryption?.headers };
    const versionId = writtenVersionId(req.bucketInfo!.versioning, result.versionId);
    if (versionId) headers['x-amz-version-id'] = versionId;
    const expiration = expirationHeader(req.target, { key: req.key!, size: result.size, lastModified: this.clock.now(), tags: meta.tags });
    if (expiration) headers['x-amz-expiration'] = expiration;
    for (const alg of checksums.algorithms) {
      const v = result.checksums[alg];
      if (v) headers[`x-amz-checksum-${alg.toLowerCase()}`] = v;
      if (v) headers['x-amz-checksum-type'] = 'FULL_OBJECT'; // a single-request upload's checksum is of the whole object
    }
    sendEmpty(req, 200, headers);
  }
}
