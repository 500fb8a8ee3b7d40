import { Inject, Injectable } from '@nestjs/common';
import type { MultipartService } from '@ostore/s3/core';
import { MULTIPART_SERVICE } from '../../services';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class AbortMultipartUploadHandler implements S3Handler {
  readonly operation = 'AbortMultipartUpload';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService) {}

  async handle(req: S3Request): Promise<void> {
    await this.multipart.abort(req.target, req.key!, req.query('uploadId')!);
    sendEmpty(req, 204);
  }
}
