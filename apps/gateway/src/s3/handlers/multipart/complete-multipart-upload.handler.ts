import { Inject, Injectable } from '@nestjs/common';
import { parseCompleteMultipartUpload, toXml } from '@ostore/s3/protocol';
import type { ChecksumAlgorithm, MultipartService } from '@ostore/s3/core';
import { MULTIPART_SERVICE } from '../../services';
import { readSmallBody, sendXml } from '../../responses';
import { writtenVersionId } from '../../object-http';
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
    const parts = parseCompleteMultipartUpload((await readSmallBody(req, 4 * 1024 * 1024)).toString('utf8'));
    const result = await this.multipart.complete({
      bucket: req.target,
      key: req.key!,
      uploadId: req.query('uploadId')!,
      parts,
      ifNoneMatch: req.header('if-none-match'),
      ifMatch: req.header('if-match'),
      expectedChecksums: objectChecksums(req),
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
      }),
      { 'x-amz-version-id': writtenVersionId(req.bucketInfo!.versioning, result.versionId), ...this.sse.headersOf(result.sse) },
    );
  }
}

/**
 * The whole object's SHA-1/SHA-256 sent with CompleteMultipartUpload: S3 allows only COMPOSITE
 * checksums (of the parts' checksums) for those, so they can be checked here. CRC checksums may be
 * FULL_OBJECT ones (chosen at CreateMultipartUpload, as current SDKs and the CLI do), which this
 * store does not compute over parts: they are not checked, never refused.
 */
function objectChecksums(req: S3Request): Partial<Record<ChecksumAlgorithm, string>> {
  const out: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const alg of ['SHA1', 'SHA256'] as const) {
    const v = req.header(`x-amz-checksum-${alg.toLowerCase()}`);
    if (v !== undefined) out[alg] = v;
  }
  return out;
}
