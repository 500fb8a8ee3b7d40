import { debugTiming, encodeStoredLifecycle, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { migratedKeyspace } from '@ostore/metastore/schema/testing';
import { S3Core } from '@ostore/s3/core';
import { createLifecycleApplier, LifecycleApplier, LifecycleApplierSettings } from '@ostore/s3/core/lifecycle';
import { coreError, CoreFixture, getObject, newBucket, newCoreFixture, putObject } from '@ostore/s3/core/testing';
import { FakeClock } from '@ostore/shared/clock/testing';

export { alice, body, drain, pattern, refsOf } from '@ostore/s3/core/testing';
export { migratedKeyspace } from '@ostore/metastore/schema/testing';

/** One lifecycle "day" in the specs (debug timing). */
export const DAY_MS = 1000;

export interface Stack extends CoreFixture<FakeClock> {
  /** A scheduler's applier over its own session and version clock (same keyspace, same clock). */
  applier(settings?: Partial<LifecycleApplierSettings>): Promise<LifecycleApplier>;
}

/**
 * The S3 core (the "gateway": writes data the way the S3 API does) over a fresh keyspace with the
 * Cassandra block store and a compressed cold tier (64 KiB blocks), on a FakeClock that starts at
 * the wall clock (so that write timestamps stay comparable with the driver's) and that specs move
 * by lifecycle days.
 */
export async function stack(label: string, keyspace?: string): Promise<Stack> {
  keyspace ??= await migratedKeyspace(label);
  const fixture = await newCoreFixture(keyspace, { clock: new FakeClock(Date.now()), coldTier: true, settings: { minPartSize: 64 * 1024 } });
  return {
    ...fixture,
    applier: async (settings = {}) =>
      createLifecycleApplier((await fixture.another()).core, fixture.clock, { timing: debugTiming(DAY_MS), transitionTier: 'cold', ...settings }),
  };
}

export async function put(core: S3Core, bucket: string, key: string, data: string | Buffer) {
  return putObject(core, bucket, key, data);
}

export async function get(core: S3Core, bucket: string, key: string, versionId?: string): Promise<Buffer> {
  return getObject(core, bucket, key, versionId);
}

/** The S3 error code a promise rejects with. */
export async function s3code(p: Promise<unknown>): Promise<string> {
  return (await coreError(p)).code;
}

/** Versions of a key as ListObjectVersions shows them: 'M' for markers, else the storage class. */
export async function history(core: S3Core, bucket: string, key: string): Promise<{ versionId: string; kind: string; latest: boolean }[]> {
  const res = await core.objects.listVersions({ bucket, prefix: key, maxKeys: 1000 });
  return res.versions
    .filter((v) => v.key === key)
    .map((v) => ({ versionId: v.versionId, kind: v.isDeleteMarker ? 'M' : v.storageClass, latest: v.isLatest }));
}

/** A bucket with a lifecycle configuration stored as the gateway stores it (JSON of the parsed XML). */
export async function bucketWith(
  core: S3Core,
  name: string,
  versioning: 'Unversioned' | 'Enabled' | 'Suspended',
  rulesXml: string,
): Promise<{ bucketId: string; name: string }> {
  const b = await newBucket(core, name, { versioning });
  const config = parseLifecycleXml(`<LifecycleConfiguration>${rulesXml}</LifecycleConfiguration>`, { relaxTransitionMinimumDays: true });
  await core.buckets.setLifecycle(name, encodeStoredLifecycle(config));
  return { bucketId: b.bucketId, name };
}

export const rule = (actions: string, filter = '<Filter/>', id = 'r1') => `<Rule><ID>${id}</ID>${filter}<Status>Enabled</Status>${actions}</Rule>`;
export const expireDays = (d: number) => rule(`<Expiration><Days>${d}</Days></Expiration>`, '<Filter/>', 'expire');
export const noncurrentDays = (d: number, newer?: number) =>
  rule(
    `<NoncurrentVersionExpiration><NoncurrentDays>${d}</NoncurrentDays>${
      newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
    }</NoncurrentVersionExpiration>`,
    '<Filter/>',
    'noncurrent',
  );
export const eodm = rule('<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>', '<Filter/>', 'eodm');
export const toGlacier = (d: number) =>
  rule(`<Transition><Days>${d}</Days><StorageClass>GLACIER</StorageClass></Transition>`, '<Filter/>', 'cold');
export const abortAfter = (d: number) =>
  rule(`<AbortIncompleteMultipartUpload><DaysAfterInitiation>${d}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`, '<Filter/>', 'abort');
