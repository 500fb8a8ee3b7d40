import { Inject, Injectable } from '@nestjs/common';
import { S3Error } from '@ostore/s3/protocol';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { aclPolicyXml } from '../../acl-xml';
import { cannedAclOf } from '../../object-http';
import { readSmallBody, sendEmpty, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class PutObjectAclHandler implements S3Handler {
  readonly operation = 'PutObjectAcl';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const acl = cannedAclOf(req);
    const body = await readSmallBody(req);
    if (!acl) throw new S3Error('NotImplemented', body.length ? 'Only canned ACLs (x-amz-acl) are supported' : 'x-amz-acl is required');
    await this.objects.setAcl(req.target, req.key!, acl, req.query('versionId') || undefined);
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetObjectAclHandler implements S3Handler {
  readonly operation = 'GetObjectAcl';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const v = await this.objects.head(req.target, req.key!, req.query('versionId') || undefined);
    sendXml(req, 200, aclPolicyXml(v.owner, v.meta.acl ?? 'private'));
  }
}
