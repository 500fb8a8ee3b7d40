import { Inject, Injectable } from '@nestjs/common';
import {
  decodeStoredLifecycle,
  encodeStoredLifecycle,
  LifecycleConfiguration,
  LifecycleConfigurationError,
  parseLifecycleXml,
  renderLifecycleXml,
} from '@ostore/lifecycle/rules';
import { S3Error } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/**
 * Validated like AWS by the rule engine's parser; stored as the parsed configuration (stored-lifecycle.ts),
 * so that generated rule ids stay stable and the scanner reads exactly what was accepted.
 */
@Injectable()
export class PutBucketLifecycleHandler implements S3Handler {
  readonly operation = 'PutBucketLifecycleConfiguration';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const body = await readVerifiedBody(req, 'all');
    let config: LifecycleConfiguration;
    try {
      config = parseLifecycleXml(body, { transitionDefaultMinimumObjectSize: req.header('x-amz-transition-default-minimum-object-size') });
    } catch (e) {
      if (e instanceof LifecycleConfigurationError) throw S3Error.fromCode(e.code, e.message);
      throw e;
    }
    await this.buckets.setLifecycle(req.bucket!, encodeStoredLifecycle(config));
    sendEmpty(req, 200, { 'x-amz-transition-default-minimum-object-size': config.transitionDefaultMinimumObjectSize });
  }
}

@Injectable()
export class GetBucketLifecycleHandler implements S3Handler {
  readonly operation = 'GetBucketLifecycleConfiguration';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const config = decodeStoredLifecycle(await this.buckets.getLifecycle(req.bucket!), `bucket ${req.bucket}`);
    sendXml(req, 200, renderLifecycleXml(config), { 'x-amz-transition-default-minimum-object-size': config.transitionDefaultMinimumObjectSize });
  }
}

@Injectable()
export class DeleteBucketLifecycleHandler implements S3Handler {
  readonly operation = 'DeleteBucketLifecycle';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.deleteLifecycle(req.bucket!);
    sendEmpty(req, 204);
  }
}
