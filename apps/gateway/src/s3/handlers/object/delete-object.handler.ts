import { Inject, Injectable } from '@nestjs/common';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Deleting a missing key succeeds (204), as on S3. */
@Injectable()
export class DeleteObjectHandler implements S3Handler {
  readonly operation = 'DeleteObject';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const versionId = req.query('versionId') || undefined;
    const result = await this.objects.delete(req.target, req.key!, req.owner ?? req.bucketInfo!.owner, versionId);
    sendEmpty(req, 204, {
      'x-amz-version-id': result.versionId,
      'x-amz-delete-marker': result.deleteMarker ? 'true' : undefined,
    });
  }
}
