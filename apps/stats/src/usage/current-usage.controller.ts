import { BadRequestException, Controller, Get, Inject, Param } from '@nestjs/common';
import { BucketCurrentUsage, CurrentUsageReader } from '@ostore/stats/data-access';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `GET /usage/buckets/:bucketId` on the stats app's management listener: the bucket's usage now
 * (newest combined snapshot + the 5-minute aggregates since its cut), what the gateway's admin
 * API shows for buckets without a quota (`bucket usage`, `bucket list`). A bucket the stats app has
 * never seen answers zeros.
 */
@Controller('usage/buckets')
export class CurrentUsageController {
  constructor(@Inject(CurrentUsageReader) private readonly reader: CurrentUsageReader) {}

  @Get(':bucketId')
  current(@Param('bucketId') bucketId: string): Promise<BucketCurrentUsage> {
    if (!UUID.test(bucketId)) throw new BadRequestException('bucketId must be a UUID');
    return this.reader.current(bucketId.toLowerCase());
  }
}
