import { debugTiming, LifecycleConfiguration, parseLifecycleXml } from '@ostore/lifecycle/rules';
import type { BucketRow } from '@ostore/metastore/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { InMemoryLifecycleStore } from '../../testing/in-memory-lifecycle.store';
import { LifecycleApplier } from '../lifecycle-applier';
import { publicVersionIdOf } from '../../version-ids';

/** Shared by the LifecycleApplier specs: rule builders and an applier over the in-memory store. */
export const DAY_MS = 1000;
export const rule = (actions: string, filter = '<Filter/>', id = 'r1') =>
  `<Rule><ID>${id}</ID>${filter}<Status>Enabled</Status>${actions}</Rule>`;
export const lifecycle = (...rules: string[]): LifecycleConfiguration =>
  parseLifecycleXml(`<LifecycleConfiguration>${rules.join('')}</LifecycleConfiguration>`, { relaxTransitionMinimumDays: true });

export const expireDays = (d: number) => rule(`<Expiration><Days>${d}</Days></Expiration>`);
export const noncurrentDays = (d: number, newer?: number) =>
  rule(
    `<NoncurrentVersionExpiration><NoncurrentDays>${d}</NoncurrentDays>${
      newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
    }</NoncurrentVersionExpiration>`,
  );
export const eodm = rule('<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>');
export const toGlacier = (d: number) => rule(`<Transition><Days>${d}</Days><StorageClass>GLACIER</StorageClass></Transition>`);
export const abortAfter = (d: number) =>
  rule(`<AbortIncompleteMultipartUpload><DaysAfterInitiation>${d}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`);

/** A LifecycleApplier over an in-memory store on a fake clock; its backoff sleeps are recorded, not slept. */
export function newApplierFixture() {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  const store = new InMemoryLifecycleStore(clock);
  const sleeps: number[] = [];
  const sut = new LifecycleApplier(
    store,
    clock,
    { timing: debugTiming(DAY_MS), transitionTier: 'cold', attempts: 4, busyBackoffMs: 10 },
    async (ms) => void sleeps.push(ms),
  );
  return { clock, store, sleeps, sut };
}

/** The candidate naming one row of a key. */
export const target = (bucket: BucketRow, key: string, row: { isNull: boolean; vid: string }) => ({
  bucketId: bucket.bucketId,
  bucket: bucket.name,
  key,
  versionId: publicVersionIdOf(row),
});
