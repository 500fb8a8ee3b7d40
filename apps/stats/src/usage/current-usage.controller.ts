import { BadRequestException, Controller, Get, Headers, Inject, Param } from '@nestjs/common';
import { BucketCurrentUsage } from '@ostore/stats/data-access';
import { BUCKET_ID } from './current-usage.http';
import { CurrentUsageRouter } from './current-usage.router';
import { CurrentUsageJson } from './usage-owner.client';
import { FORWARDED_HEADER } from './usage-routes';

/**
 * `GET /usage/buckets/:bucketId` on the stats app's management listener: the bucket's usage now
 * (newest combined snapshot + the 5-minute aggregates since its cut), what the gateway's admin
 * API shows for buckets without a quota (`bucket usage`, `bucket list`). A bucket the stats app has
 * never seen answers zeros. Any replica answers; one that does not read the bucket's usage
 * partition forwards the request once to the one that does (CurrentUsageRouter).
 *
 * A GET with a well-formed id is answered before it reaches Nest, by the plain handler of
 * current-usage.http.ts on the same listener and with the same router; this controller answers
 * what that handler leaves (a malformed id: 400), and any app built without that handler.
 */
@Controller('usage/buckets')
export class CurrentUsageController {
  constructor(@Inject(CurrentUsageRouter) private readonly router: CurrentUsageRouter) {}

  @Get(':bucketId')
  current(
    @Param('bucketId') bucketId: string,
    @Headers(FORWARDED_HEADER) forwarded: string | undefined,
  ): Promise<BucketCurrentUsage | CurrentUsageJson> {
    if (!BUCKET_ID.test(bucketId)) throw new BadRequestException('bucketId must be a UUID');
    return this.router.current(bucketId.toLowerCase(), forwarded !== undefined);
  }
}
