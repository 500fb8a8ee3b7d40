import { BadRequestException, Body, Controller, Delete, Get, HttpException, Inject, NotFoundException, Param, Post, Put, UseGuards } from '@nestjs/common';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE, QuotaChange, quotaOf, S3Core, S3DomainError } from '@ostore/s3/core';
import { JsonLogger } from '@ostore/shared/observability';
import { AdminTokenGuard } from './admin.controller';
import { StatsUsageClient } from './stats-usage.client';

/** A limit in a request body: a non-negative integer, null (clear it) or absent (keep it). */
function limitOf(body: Record<string, unknown>, field: 'maxBytes' | 'maxObjects'): number | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new BadRequestException(`${field} must be a non-negative integer or null`);
  return v;
}

/** A domain error as the admin API's 4xx (404 for a missing bucket), anything else unchanged. */
async function asHttp<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (!(e instanceof S3DomainError)) throw e;
    if (e.code === 'NoSuchBucket') throw new NotFoundException(`no bucket named ${e.extra['BucketName'] ?? ''}`.trim());
    throw new HttpException(`${e.code}: ${e.message}`, 400);
  }
}

/**
 * Buckets for operators: `GET /admin/buckets` (name, owner, created, quota, usage),
 * `GET /admin/buckets/:name/usage`, `PUT /admin/buckets/:name/quota` (`{maxBytes, maxObjects}`:
 * a number sets a limit, null clears it, absent keeps it), `DELETE /admin/buckets/:name/quota`
 * and `POST /admin/buckets/:name/quota/recount` (re-bases the live ledger to an exact recount).
 */
@Controller('admin/buckets')
@UseGuards(AdminTokenGuard)
export class BucketAdminController {
  private readonly log;

  constructor(
    @Inject(S3Core) private readonly core: S3Core,
    logger: JsonLogger,
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    @Inject(StatsUsageClient) private readonly stats: StatsUsageClient,
  ) {
    this.log = logger.forContext(BucketAdminController.name);
  }

  @Get()
  async list() {
    return this.stats.withUsage(await asHttp(this.core.quotas.list()));
  }

  /** A quota bucket: the live ledger. Without a quota: the stats app's current usage (ADMIN_STATS_URL), else (or when it fails) an exact recount. */
  @Get(':name/usage')
  async usage(@Param('name') name: string) {
    if (this.stats.enabled) {
      const bucket = await asHttp(this.buckets.get(name));
      if (!quotaOf(bucket)) {
        try {
          return StatsUsageClient.usageView(bucket, await this.stats.current(bucket.bucketId));
        } catch (e) {
          this.log.warn('current usage from the stats app failed; recounting', { bucket: name, err: e });
          return { ...(await asHttp(this.core.quotas.usage(name))), statsError: (e as Error).message };
        }
      }
    }
    return asHttp(this.core.quotas.usage(name));
  }

  @Put(':name/quota')
  async setQuota(@Param('name') name: string, @Body() body: Record<string, unknown> | undefined) {
    const change: QuotaChange = { maxBytes: limitOf(body ?? {}, 'maxBytes'), maxObjects: limitOf(body ?? {}, 'maxObjects') };
    if (change.maxBytes === undefined && change.maxObjects === undefined) throw new BadRequestException('give maxBytes and/or maxObjects');
    const usage = await asHttp(this.core.quotas.setQuota(name, change));
    this.log.info('bucket quota set', { bucket: name, maxBytes: usage.quota?.maxBytes, maxObjects: usage.quota?.maxObjects });
    return usage;
  }

  @Delete(':name/quota')
  async clearQuota(@Param('name') name: string) {
    const usage = await asHttp(this.core.quotas.setQuota(name, { maxBytes: null, maxObjects: null }));
    this.log.info('bucket quota cleared', { bucket: name });
    return usage;
  }

  @Post(':name/quota/recount')
  async recount(@Param('name') name: string) {
    const result = await asHttp(this.core.quotas.recountBucket(name));
    this.log.info('bucket quota ledger re-based', { bucket: name, driftBytes: result.drift.bytes, driftObjects: result.drift.objects });
    return result;
  }
}
