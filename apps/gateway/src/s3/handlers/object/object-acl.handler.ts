import { Inject, Injectable } from '@nestjs/common';
import { S3Error } from '@ostore/s3/protocol';
import type { ObjectsService } from '@ostore/s3/core';
import { decodeAcl } from '@ostore/s3/policy';
import { AccessControl } from '../../access';
import { aclToSet } from '../../acl-body';
import { AclResolver } from '../../acl-request';
import { aclPolicyXml } from '../../acl-xml';
import { OBJECTS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** PutObjectAcl: a canned ACL, grant headers or an AccessControlPolicy body (the owners or a WRITE_ACP grantee of the object). */
@Injectable()
export class PutObjectAclHandler implements S3Handler {
  readonly operation = 'PutObjectAcl';
  readonly access = 'object-acp' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
    private readonly resolver: AclResolver,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const versionId = req.query('versionId') || undefined;
    const v = await this.objects.head(req.target, req.key!, versionId);
    if (!this.accessControl.isObjectAllowed(req, v.owner.id, v.meta.acl, 'WRITE_ACP')) throw new S3Error('AccessDenied', 'Access Denied');
    const acl = await aclToSet(req, this.resolver, v.owner.id);
    await this.objects.setAcl(req.target, req.key!, acl, versionId);
    sendEmpty(req, 200);
  }
}

/** GetObjectAcl: the object's owner and every grant (the owners or a READ_ACP grantee of the object). */
@Injectable()
export class GetObjectAclHandler implements S3Handler {
  readonly operation = 'GetObjectAcl';
  readonly access = 'object-acp' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const v = await this.objects.head(req.target, req.key!, req.query('versionId') || undefined);
    if (!this.accessControl.isObjectAllowed(req, v.owner.id, v.meta.acl, 'READ_ACP')) throw new S3Error('AccessDenied', 'Access Denied');
    sendXml(req, 200, aclPolicyXml(v.owner, decodeAcl(v.meta.acl, v.owner, req.target.owner)));
  }
}
