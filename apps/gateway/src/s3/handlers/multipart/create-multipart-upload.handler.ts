import { Inject, Injectable } from '@nestjs/common';
import { parseChecksumType, S3Error, toXml } from '@ostore/s3/protocol';
import type { ChecksumAlgorithm, MultipartService } from '@ostore/s3/core';
import { MULTIPART_SERVICE } from '../../services';
import { CHECKSUM_ALGORITHMS, metaFromHeaders, objectOwnerOf } from '../../object-http';
import { readSmallBody, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';

@Injectable()
export class CreateMultipartUploadHandler implements S3Handler {
  readonly operation = 'CreateMultipartUpload';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    await readSmallBody(req, 0);
    const alg = req.header('x-amz-checksum-algorithm')?.toUpperCase();
    if (alg !== undefined && !CHECKSUM_ALGORITHMS.includes(alg as ChecksumAlgorithm)) {
      throw new S3Error('InvalidRequest', `Checksum algorithm provided is unsupported: ${alg}`);
    }
    // COMPOSITE or FULL_OBJECT, refused for an algorithm that cannot make it (SHA-* full-object, CRC64NVME composite)
    const checksumType = parseChecksumType(req.header('x-amz-checksum-type'), alg as ChecksumAlgorithm | undefined);
    // SSE headers, else the bucket's default encryption: the upload's record seals every part (and the object)
    const encryption = this.sse.forWrite(req);
    const meta = metaFromHeaders(req);
    const upload = await this.multipart.create({
      bucket: req.target,
      key: req.key!,
      owner: objectOwnerOf(req),
      meta: encryption ? { ...meta, sse: encryption.sse } : meta,
      checksumAlgorithm: alg as ChecksumAlgorithm | undefined,
      checksumType,
    });
    sendXml(req, 200, toXml('InitiateMultipartUploadResult', { Bucket: req.bucket!, Key: req.key!, UploadId: upload.uploadId }), {
      'x-amz-checksum-algorithm': alg,
      'x-amz-checksum-type': checksumType,
      ...encryption?.headers,
    });
  }
}
