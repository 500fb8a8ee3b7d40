import { Injectable } from '@nestjs/common';
import { toXml } from '@ostore/s3/protocol';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Bucket settings we do not support answer what S3 says for a bucket that never set them. */
abstract class DefaultDocumentHandler implements S3Handler {
  abstract readonly operation: string;
  readonly access = 'bucket-owner' as const;
  protected abstract document(): string;

  async handle(req: S3Request): Promise<void> {
    sendXml(req, 200, this.document());
  }
}

@Injectable()
export class GetBucketLoggingHandler extends DefaultDocumentHandler {
  readonly operation = 'GetBucketLogging';
  protected document(): string {
    return toXml('BucketLoggingStatus', {});
  }
}

@Injectable()
export class GetBucketNotificationHandler extends DefaultDocumentHandler {
  readonly operation = 'GetBucketNotificationConfiguration';
  protected document(): string {
    return toXml('NotificationConfiguration', {});
  }
}

@Injectable()
export class GetBucketRequestPaymentHandler extends DefaultDocumentHandler {
  readonly operation = 'GetBucketRequestPayment';
  protected document(): string {
    return toXml('RequestPaymentConfiguration', { Payer: 'BucketOwner' });
  }
}

@Injectable()
export class GetBucketAccelerateHandler extends DefaultDocumentHandler {
  readonly operation = 'GetBucketAccelerateConfiguration';
  protected document(): string {
    return toXml('AccelerateConfiguration', {});
  }
}
