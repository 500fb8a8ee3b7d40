import { Injectable } from '@nestjs/common';
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

/** A configuration set (analytics, metrics, ...) lists none: the gateway cannot store one. */
abstract class EmptyConfigurationListHandler extends DefaultDocumentHandler {
  protected abstract readonly root: string;
  protected document(): string {
    return toXml(this.root, { IsTruncated: false });
  }
}

/** A configuration of a set the gateway cannot store is never there. */
abstract class MissingConfigurationHandler implements S3Handler {
  abstract readonly operation: string;
  readonly access = 'bucket-owner' as const;

  async handle(): Promise<void> {
    throw new S3Error('NoSuchConfiguration');
  }
}

@Injectable()
export class ListBucketAnalyticsConfigurationsHandler extends EmptyConfigurationListHandler {
  readonly operation = CONFIGURATION_SETS['analytics']!.list;
  protected readonly root = CONFIGURATION_SETS['analytics']!.listRoot;
}

@Injectable()
export class ListBucketMetricsConfigurationsHandler extends EmptyConfigurationListHandler {
  readonly operation = CONFIGURATION_SETS['metrics']!.list;
  protected readonly root = CONFIGURATION_SETS['metrics']!.listRoot;
}

@Injectable()
export class ListBucketInventoryConfigurationsHandler extends EmptyConfigurationListHandler {
  readonly operation = CONFIGURATION_SETS['inventory']!.list;
  protected readonly root = CONFIGURATION_SETS['inventory']!.listRoot;
}

@Injectable()
export class ListBucketIntelligentTieringConfigurationsHandler extends EmptyConfigurationListHandler {
  readonly operation = CONFIGURATION_SETS['intelligent-tiering']!.list;
  protected readonly root = CONFIGURATION_SETS['intelligent-tiering']!.listRoot;
}

@Injectable()
export class GetBucketAnalyticsConfigurationHandler extends MissingConfigurationHandler {
  readonly operation = CONFIGURATION_SETS['analytics']!.get;
}

@Injectable()
export class GetBucketMetricsConfigurationHandler extends MissingConfigurationHandler {
  readonly operation = CONFIGURATION_SETS['metrics']!.get;
}

@Injectable()
export class GetBucketInventoryConfigurationHandler extends MissingConfigurationHandler {
  readonly operation = CONFIGURATION_SETS['inventory']!.get;
}

@Injectable()
export class GetBucketIntelligentTieringConfigurationHandler extends MissingConfigurationHandler {
  readonly operation = CONFIGURATION_SETS['intelligent-tiering']!.get;
}
