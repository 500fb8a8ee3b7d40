import { Inject, Injectable } from '@nestjs/common';
import { isoDate, parseMaxKeys, parsePartNumberMarker, toXml } from '@ostore/s3/protocol';
import type { MultipartService } from '@ostore/s3/core';
import { MULTIPART_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class ListPartsHandler implements S3Handler {
  readonly operation = 'ListParts';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService) {}

  async handle(req: S3Request): Promise<void> {
    const maxParts = parseMaxKeys(req.query('max-parts'), 'max-parts');
    const marker = parsePartNumberMarker(req.query('part-number-marker'));
    const page = await this.multipart.listParts({ bucket: req.target, key: req.key!, uploadId: req.query('uploadId')!, partNumberMarker: marker, maxParts });
    const owner = { ID: page.upload.owner.id, DisplayName: page.upload.owner.displayName };
    sendXml(
      req,
      200,
      toXml('ListPartsResult', {
        Bucket: req.bucket!,
        Key: req.key!,
        UploadId: page.upload.uploadId,
        Initiator: owner,
        Owner: owner,
        StorageClass: page.upload.storageClass || 'STANDARD',
        PartNumberMarker: marker ?? 0,
        NextPartNumberMarker: page.nextPartNumberMarker ?? page.parts[page.parts.length - 1]?.partNumber ?? 0,
        MaxParts: maxParts,
        IsTruncated: page.isTruncated,
        ChecksumAlgorithm: page.upload.checksumAlgorithm,
        ChecksumType: page.upload.checksumType,
        Part: page.parts.map((p) => ({
          PartNumber: p.partNumber,
          LastModified: isoDate(p.lastModified),
          ETag: p.etag,
          Size: p.size,
          ...Object.fromEntries(Object.entries(p.checksums).map(([alg, v]) => [`Checksum${alg}`, v])),
        })),
      }),
    );
  }
}
