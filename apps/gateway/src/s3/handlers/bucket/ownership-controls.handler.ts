import { Inject, Injectable } from '@nestjs/common';
import { parseXmlBody, S3Error, toXml, xmlChildren, xmlLeaf } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { AclUser, decodeAcl, isObjectOwnership, ObjectOwnership } from '@ostore/s3/policy';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Reads an OwnershipControls document: exactly one Rule with a known ObjectOwnership, else MalformedXML. */
export function parseOwnershipControls(text: string): ObjectOwnership {
  const root = parseXmlBody(text, 'OwnershipControls');
  const rules = xmlChildren(root, 'Rule');
  if (rules.length !== 1 || root.children.length !== 1) throw new S3Error('MalformedXML');
  const value = xmlLeaf(rules[0], 'ObjectOwnership');
  if (!isObjectOwnership(value)) throw new S3Error('MalformedXML');
  return value;
}

/** BucketOwnerEnforced needs a bucket ACL that grants nobody but the owner (AWS's InvalidBucketAclWithObjectOwnership). */
export function refuseAclWithEnforced(ownership: string | undefined, acl: string, owner: AclUser): void {
  const ownerOnly = decodeAcl(acl, owner).every((g) => g.grantee.type === 'CanonicalUser' && g.grantee.id === owner.id);
  if (ownership === 'BucketOwnerEnforced' && !ownerOnly)
    throw S3Error.fromCode('InvalidBucketAclWithObjectOwnership', "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting", { httpStatus: 400 });
}

@Injectable()
export class PutBucketOwnershipControlsHandler implements S3Handler {
  readonly operation = 'PutBucketOwnershipControls';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const ownership = parseOwnershipControls((await readVerifiedBody(req, 'all')).toString('utf8'));
    refuseAclWithEnforced(ownership, req.target.acl, req.target.owner);
    await this.buckets.setAccessSettings(req.target.name, { objectOwnership: ownership });
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetBucketOwnershipControlsHandler implements S3Handler {
  readonly operation = 'GetBucketOwnershipControls';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const ownership = req.target.objectOwnership;
    if (!ownership)
      throw S3Error.fromCode('OwnershipControlsNotFoundError', 'The bucket ownership controls were not found', { httpStatus: 404, extra: { BucketName: req.target.name } });
    sendXml(req, 200, toXml('OwnershipControls', { Rule: { ObjectOwnership: ownership } }));
  }
}

@Injectable()
export class DeleteBucketOwnershipControlsHandler implements S3Handler {
  readonly operation = 'DeleteBucketOwnershipControls';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.setAccessSettings(req.target.name, { objectOwnership: null });
    sendEmpty(req, 204);
  }
}
