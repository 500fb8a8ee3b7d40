import { Inject, Injectable } from '@nestjs/common';
import { isoDate, parseMaxKeys, toXml } from '@ostore/s3/protocol';
import type { MultipartService } from '@ostore/s3/core';
import { MULTIPART_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { encodingOf } from '../object/list-objects.handler';

@Injectable()
export class ListMultipartUploadsHandler implements S3Handler {
  readonly operation = 'ListMultipartUploads';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService) {}

  async handle(req: S3Request): Promise<void> {
    const enc = encodingOf(req);
    const maxUploads = parseMaxKeys(req.query('max-uploads'), 'max-uploads');
    const prefix = req.query('prefix') ?? '';
    const delimiter = req.query('delimiter') || undefined;
    const keyMarker = req.query('key-marker') ?? '';
    const uploadIdMarker = req.query('upload-id-marker') ?? '';
    const page = await this.multipart.listUploads({
      bucket: req.target,
      prefix,
      delimiter,
      keyMarker: keyMarker || undefined,
      uploadIdMarker: keyMarker && uploadIdMarker ? uploadIdMarker : undefined,
      maxUploads,
    });
    sendXml(
      req,
      200,
      toXml('ListMultipartUploadsResult', {
        Bucket: req.bucket!,
        KeyMarker: enc(keyMarker),
        UploadIdMarker: uploadIdMarker,
        NextKeyMarker: page.isTruncated && page.nextKeyMarker !== undefined ? enc(page.nextKeyMarker) : undefined,
        NextUploadIdMarker: page.isTruncated ? page.nextUploadIdMarker : undefined,
        Prefix: enc(prefix),
        Delimiter: delimiter === undefined ? undefined : enc(delimiter),
        MaxUploads: maxUploads,
        IsTruncated: page.isTruncated,
        EncodingType: enc.on ? 'url' : undefined,
        Upload: page.uploads.map((u) => ({
          Key: enc(u.key),
          UploadId: u.uploadId,
          Initiator: { ID: u.owner.id, DisplayName: u.owner.displayName },
          Owner: { ID: u.owner.id, DisplayName: u.owner.displayName },
          StorageClass: u.storageClass || 'STANDARD',
          Initiated: isoDate(u.initiated),
          ChecksumAlgorithm: u.checksumAlgorithm,
          ChecksumType: u.checksumType,
        })),
        CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      }),
    );
  }
}
