import type { LedgerUsage, QuotaLedgerRepository } from '@ostore/metastore/data-access';
import { JsonLogger } from '@ostore/shared/observability';
import { S3DomainError } from '../api';
import { QuotaGuard, quotaOf } from './quota-guard';

/** A ledger whose reads and writes the test releases one by one. */
class ControlledLedger {
  value: LedgerUsage = { bytes: 0, objects: 0 };
  readonly reads: (() => void)[] = [];
  readonly writes: { land: () => void; fail: () => void }[] = [];
  holdReads = false;
  holdWrites = false;

  get(): Promise<LedgerUsage> {
    if (!this.holdReads) return Promise.resolve({ ...this.value });
    return new Promise((resolve) => this.reads.push(() => resolve({ ...this.value })));
  }

  add(_id: string, bytes: number, objects: number): Promise<void> {
    const apply = () => {
      this.value = { bytes: this.value.bytes + bytes, objects: this.value.objects + objects };
    };
    if (!this.holdWrites) {
      apply();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) =>
      this.writes.push({
        land: () => {
          apply();
          resolve();
        },
        fail: () => reject(new Error('write timeout')),
      }),
    );
  }
}

const flush = () => new Promise((r) => setImmediate(r));
const bucket = { bucketId: '3b0f4a4e-8f5e-4c1a-9d1e-2b9a6f0c7d11', name: 'logs', versioning: 'Unversioned', quotaBytes: 100, quotaObjects: 3 };

describe(QuotaGuard.name, () => {
  let ledger: ControlledLedger;
  let sut: QuotaGuard;
  beforeEach(() => {
    ledger = new ControlledLedger();
    sut = new QuotaGuard(ledger as unknown as QuotaLedgerRepository, new JsonLogger('test', 'fatal').forContext('test'));
  });

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'admitted',
      (e: S3DomainError) => `${e.code} ${e.extra['BucketName']}`,
    );

  it('does no I/O and admits everything for a bucket without a quota', async () => {
    ledger.holdReads = true;
    expect(quotaOf({})).toBeUndefined();
    expect(await sut.admit({ ...bucket, quotaBytes: undefined, quotaObjects: undefined }, { bytes: 1e12, objects: 1 })).toBeUndefined();
    expect(ledger.reads).toHaveLength(0);
  });

  it('never admits more than the limit among concurrent requests of one process', async () => {
    ledger.holdReads = true;
    const attempts = Array.from({ length: 8 }, () => refusal(sut.admit(bucket, { bytes: 30, objects: 0 })));
    await flush();
    for (const release of ledger.reads.splice(0)) release();
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r === 'admitted')).toHaveLength(3);
    expect(results.filter((r) => r === 'QuotaExceeded logs')).toHaveLength(5);
  });

  it('counts an increment that lands while a read is in flight, and one still in flight', async () => {
    const first = (await sut.admit(bucket, { bytes: 60, objects: 1 }))!;
    ledger.holdReads = true;
    ledger.holdWrites = true;
    // a second admission's read starts before the first write lands in the ledger...
    const second = refusal(sut.admit(bucket, { bytes: 50, objects: 1 }));
    await flush();
    sut.record(bucket, { bytes: 60, objects: 1 });
    first.release();
    ledger.writes[0].land();
    await flush();
    // ...and the read answers with the old value: the landed increment is still counted
    ledger.value = { bytes: 0, objects: 0 };
    ledger.reads.shift()!();
    expect(await second).toBe('QuotaExceeded logs');
    // an increment not yet acknowledged counts as well
    ledger.value = { bytes: 0, objects: 0 };
    ledger.holdReads = false;
    sut.record(bucket, { bytes: 60, objects: 1 });
    expect(await refusal(sut.admit(bucket, { bytes: 50, objects: 0 }))).toBe('QuotaExceeded logs');
    ledger.writes[1].fail();
    await flush();
    expect(sut.reservedIn(bucket.bucketId)).toEqual({ bytes: 0, objects: 0 });
  });

  it('frees room as soon as a removal lands and refuses the object beyond maxObjects', async () => {
    for (let i = 0; i < 3; i++) {
      const t = (await sut.admit(bucket, { bytes: 10, objects: 1 }))!;
      sut.record(bucket, { bytes: 10, objects: 1 });
      t.release();
      await flush();
    }
    await flush();
    expect(await refusal(sut.admit(bucket, { bytes: 1, objects: 1 }))).toBe('QuotaExceeded logs');
    sut.record(bucket, { bytes: -10, objects: -1 });
    await flush();
    expect(await refusal(sut.admit(bucket, { bytes: 1, objects: 1 }))).toBe('admitted');
  });

  it('checks a body of unknown size again once its size is known', async () => {
    const t = (await sut.admit(bucket, { bytes: 0, objects: 1 }))!;
    await expect(sut.fit(t, 101)).rejects.toMatchObject({ code: 'QuotaExceeded' });
    await sut.fit(t, 100);
    expect(sut.reservedIn(bucket.bucketId)).toEqual({ bytes: 100, objects: 1 });
    t.release();
    t.release();
    expect(sut.reservedIn(bucket.bucketId)).toEqual({ bytes: 0, objects: 0 });
  });
});
