import { Inject, Injectable } from '@nestjs/common';
import { decodeBucketEncryption, encodeBucketEncryption, MAX_ENCRYPTION_XML_BYTES, parseBucketEncryptionXml, renderBucketEncryptionXml } from '@ostore/s3/crypto';
import { S3Error } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { ObjectEncryption } from '../../sse/object-encryption';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** The bucket's default encryption (SSE-S3 only; aws:kms is NotImplemented), applied to new objects sent without SSE headers. */
@Injectable()
export class PutBucketEncryptionHandler implements S3Handler {
  readonly operation = 'PutBucketEncryption';
  readonly access = 'bucket-owner' as const;

  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const config = parseBucketEncryptionXml((await readVerifiedBody(req, 'all', MAX_ENCRYPTION_XML_BYTES)).toString('utf8'));
    this.sse.assertCanEncryptAtRest();
    await this.buckets.setEncryption(req.bucket!, encodeBucketEncryption(config));
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetBucketEncryptionHandler implements S3Handler {
  readonly operation = 'GetBucketEncryption';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const config = decodeBucketEncryption(req.target.encryption);
    if (!config) throw new S3Error('ServerSideEncryptionConfigurationNotFoundError', undefined, { extra: { BucketName: req.bucket! } });
    sendXml(req, 200, renderBucketEncryptionXml(config));
  }
}

@Injectable()
export class DeleteBucketEncryptionHandler implements S3Handler {
  readonly operation = 'DeleteBucketEncryption';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.setEncryption(req.bucket!, null);
    sendEmpty(req, 204);
  }
}
