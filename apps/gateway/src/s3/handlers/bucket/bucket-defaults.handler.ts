import { Injectable, Type } from '@nestjs/common';
import { S3Error, toXml } from '@ostore/s3/protocol';
import { CONFIGURATION_SETS } from '../../operations';
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

/**
 * The two handlers of a configuration set the gateway cannot store (`CONFIGURATION_SETS`): its
 * list is empty, and a configuration asked for by id is never there.
 */
function configurationSetHandlers(param: string): [list: Type<S3Handler>, get: Type<S3Handler>] {
  const set = CONFIGURATION_SETS[param]!;
  @Injectable()
  class EmptyList extends DefaultDocumentHandler {
    readonly operation = set.list;
    protected document(): string {
      return toXml(set.listRoot, { IsTruncated: false });
    }
  }
  @Injectable()
  class Missing implements S3Handler {
    readonly operation = set.get;
    readonly access = 'bucket-owner' as const;
    async handle(): Promise<void> {
      throw new S3Error('NoSuchConfiguration');
    }
  }
  return [EmptyList, Missing];
}

export const [ListBucketAnalyticsConfigurationsHandler, GetBucketAnalyticsConfigurationHandler] =
  configurationSetHandlers('analytics');
export const [ListBucketMetricsConfigurationsHandler, GetBucketMetricsConfigurationHandler] =
  configurationSetHandlers('metrics');
export const [ListBucketInventoryConfigurationsHandler, GetBucketInventoryConfigurationHandler] =
  configurationSetHandlers('inventory');
export const [ListBucketIntelligentTieringConfigurationsHandler, GetBucketIntelligentTieringConfigurationHandler] =
  configurationSetHandlers('intelligent-tiering');
