import { Inject, Injectable } from '@nestjs/common';
import { parseChecksumTypeValue, parseCompleteMultipartUpload, toXml } from '@ostore/s3/protocol';
import { checksumTypeOf } from '@ostore/s3/core';
import type { ChecksumAlgorithm, MultipartService } from '@ostore/s3/core';
import { CHECKSUM_ALGORITHMS, writtenVersionId } from '../../object-http';
import { MULTIPART_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';

@Injectable()
export class CompleteMultipartUploadHandler implements S3Handler {
  readonly operation = 'CompleteMultipartUpload';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const parts = parseCompleteMultipartUpload((await readVerifiedBody(req, 'md5', 4 * 1024 * 1024)).toString('utf8'));
    const result = await this.multipart.complete({
      bucket: req.target,
      key: req.key!,
      uploadId: req.query('uploadId')!,
      parts,
      ifNoneMatch: req.header('if-none-match'),
      ifMatch: req.header('if-match'),
      expectedChecksums: objectChecksums(req),
      expectedChecksumType: parseChecksumTypeValue(req.header('x-amz-checksum-type')),
    });
    const host = req.header('host') ?? 'localhost';
    sendXml(
      req,
      200,
      toXml('CompleteMultipartUploadResult', {
        Location: `http://${host}/${req.bucket}/${encodeURI(req.key!)}`,
        Bucket: req.bucket!,
        Key: req.key!,
        ETag: result.etag,
        ...Object.fromEntries(Object.entries(result.checksums).map(([alg, v]) => [`Checksum${alg}`, v])),
        ChecksumType: Object.values(result.checksums).map(checksumTypeOf)[0],
      }),
      { 'x-amz-version-id': writtenVersionId(req.bucketInfo!.versioning, result.versionId), ...this.sse.headersOf(result.sse) },
    );
  }
}

/**
 * The whole object's checksum sent with CompleteMultipartUpload (x-amz-checksum-<alg>): COMPOSITE
 * (of the parts' checksums, `-N` optional) or FULL_OBJECT (a CRC of the whole body), checked by the
 * completion against the one it computes from the parts.
 */
function objectChecksums(req: S3Request): Partial<Record<ChecksumAlgorithm, string>> {
  const out: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = req.header(`x-amz-checksum-${alg.toLowerCase()}`);
    if (v !== undefined) out[alg] = v;
  }
  return out;
}
