import { Inject, Injectable } from '@nestjs/common';
import { parseTagging } from '@ostore/s3/protocol';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { tagSetXml } from '../bucket/bucket-tagging.handler';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

const versionOf = (req: S3Request) => req.query('versionId') || undefined;

@Injectable()
export class PutObjectTaggingHandler implements S3Handler {
  readonly operation = 'PutObjectTagging';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const tags = parseTagging((await readVerifiedBody(req, 'all')).toString('utf8'), 'object');
    const r = await this.objects.setTags(req.target, req.key!, tags, versionOf(req));
    sendEmpty(req, 200, { 'x-amz-version-id': r.versionId });
  }
}

@Injectable()
export class GetObjectTaggingHandler implements S3Handler {
  readonly operation = 'GetObjectTagging';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const r = await this.objects.getTags(req.target, req.key!, versionOf(req));
    sendXml(req, 200, tagSetXml(r.tags), { 'x-amz-version-id': r.versionId });
  }
}

@Injectable()
export class DeleteObjectTaggingHandler implements S3Handler {
  readonly operation = 'DeleteObjectTagging';
  readonly access = 'bucket-write' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const r = await this.objects.deleteTags(req.target, req.key!, versionOf(req));
    sendEmpty(req, 204, { 'x-amz-version-id': r.versionId });
  }
}
