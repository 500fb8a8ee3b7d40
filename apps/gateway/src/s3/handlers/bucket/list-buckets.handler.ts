import { Inject, Injectable } from '@nestjs/common';
import { isoDate, S3Error, toXml } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

const MAX_BUCKETS = 10000;

/** max-buckets: 1..10000 (S3); pages of 10,000 when absent. */
function parseMaxBuckets(value: string | undefined): number {
  if (value === undefined) return MAX_BUCKETS;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_BUCKETS)
    throw new S3Error('InvalidArgument', `max-buckets must be an integer between 1 and ${MAX_BUCKETS}`, {
      extra: { ArgumentName: 'max-buckets', ArgumentValue: value },
    });
  return n;
}

/** The continuation token is the last name returned, base64url: opaque to clients, stable across calls. */
function afterToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const name = Buffer.from(token, 'base64url').toString('utf8');
  if (!token || Buffer.from(name, 'utf8').toString('base64url') !== token)
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', {
      extra: { ArgumentName: 'continuation-token', ArgumentValue: token },
    });
  return name;
}

/**
 * ListBuckets: the caller's buckets in name order, paginated with max-buckets / continuation-token,
 * prefix; one page read from the owner's listing, never all of it.
 */
@Injectable()
export class ListBucketsHandler implements S3Handler {
  readonly operation = 'ListBuckets';
  readonly access = 'authenticated' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const owner = req.owner!;
    const maxBuckets = parseMaxBuckets(req.query('max-buckets'));
    const after = afterToken(req.query('continuation-token'));
    const prefix = req.query('prefix');
    const { buckets: page, more } = await this.buckets.listOwnedPage(owner.id, { after, prefix, limit: maxBuckets });
    sendXml(
      req,
      200,
      toXml('ListAllMyBucketsResult', {
        Owner: { ID: owner.id, DisplayName: owner.displayName },
        Buckets: { Bucket: page.map((b) => ({ Name: b.name, CreationDate: isoDate(b.createdAt) })) },
        ContinuationToken: more ? Buffer.from(page[page.length - 1].name, 'utf8').toString('base64url') : undefined,
        Prefix: prefix,
      }),
    );
  }
}
