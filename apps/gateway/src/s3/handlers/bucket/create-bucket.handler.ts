import { Inject, Injectable } from '@nestjs/common';
import { parseCreateBucketConfiguration, validateBucketName } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { GATEWAY_CONFIG } from '../../tokens';
import type { GatewayConfig } from '../../../config/gateway.config';
import { objectOwnershipOf } from './create-bucket-ownership';
import { sendEmpty } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class CreateBucketHandler implements S3Handler {
  readonly operation = 'CreateBucket';
  readonly access = 'authenticated' as const;

  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async handle(req: S3Request): Promise<void> {
    validateBucketName(req.bucket!);
    const acl = req.requestedAcl ?? 'private';
    const ownership = objectOwnershipOf(req, acl, this.config.s3.defaultObjectOwnership);
    const body = await readVerifiedBody(req, 'all');
    const location = body.length ? parseCreateBucketConfiguration(body.toString('utf8')).locationConstraint ?? '' : '';
    await this.buckets.createWithinLimit(
      { name: req.bucket!, owner: req.owner!, location: location || this.config.s3.region, acl },
      this.config.s3.maxBucketsPerUser,
    );
    await this.buckets.setAccessSettings(req.bucket!, { objectOwnership: ownership });
    sendEmpty(req, 200, { Location: `/${req.bucket}` });
  }
}
