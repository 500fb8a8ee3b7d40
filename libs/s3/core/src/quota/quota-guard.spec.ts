import type { LedgerUsage, QuotaLedgerRepository } from '@ostore/metastore/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger } from '@ostore/shared/observability';
import { S3DomainError } from '../api';
import { QuotaGuard, quotaOf } from './quota-guard';
import { defaultQuotaLedgerSettings, QuotaLedgerSettings } from './quota-state';

/** A ledger whose reads and writes the test releases one by one. */
class ControlledLedger {
  value: LedgerUsage = { bytes: 0, objects: 0 };
  readonly reads: (() => void)[] = [];
  gets = 0;
  adds: [number, number][] = [];
  readonly writes: { land: () => void; fail: () => void }[] = [];
  holdReads = false;
  holdWrites = false;

  get(): Promise<LedgerUsage> {
    this.gets++;
    if (!this.holdReads) return Promise.resolve({ ...this.value });
    return new Promise((resolve) => this.reads.push(() => resolve({ ...this.value })));
  }

  add(_id: string, bytes: number, objects: number): Promise<void> {
    this.adds.push([bytes, objects]);
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
  let clock: FakeClock;
  const guard = (settings: QuotaLedgerSettings = defaultQuotaLedgerSettings) =>
    new QuotaGuard(ledger as unknown as QuotaLedgerRepository, clock, new JsonLogger('test', 'fatal').forContext('test'), undefined, settings);
  beforeEach(() => {
    ledger = new ControlledLedger();
    clock = new FakeClock();
    // a 100-byte quota is inside the default exact headroom (1 GiB): every admission reads, every change is written at once
    sut = guard();
  });
  afterEach(() => sut.close());

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

  it('reads the limits of a bucket row, naming only the limits that are set', () => {
    expect(quotaOf({ quotaBytes: 0 })).toStrictEqual({ maxBytes: 0 });
    expect(quotaOf({ quotaObjects: 7 })).toStrictEqual({ maxObjects: 7 });
    expect(quotaOf({ quotaBytes: 2 ** 50, quotaObjects: 1e12 })).toStrictEqual({ maxBytes: 2 ** 50, maxObjects: 1e12 });
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

  describe('far from the limit', () => {
    const big = { ...bucket, quotaBytes: 10 * 2 ** 30, quotaObjects: undefined };
    const cheap = { ...defaultQuotaLedgerSettings, intervalMs: 250, gaugeRefreshMs: 0 };
    beforeEach(() => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
      sut = guard(cheap);
    });
    afterEach(() => jest.useRealTimers());

    it('shares one ledger read among the admissions of an interval and sends one summed update per interval', async () => {
      for (let i = 0; i < 100; i++) {
        const t = (await sut.admit(big, { bytes: 1000, objects: 1 }))!;
        expect(sut.record(big, { bytes: 1000, objects: 1 }, t)).toBeUndefined();
      }
      expect(ledger.gets).toBe(1);
      expect(ledger.adds).toEqual([]);
      jest.advanceTimersByTime(250);
      await flush();
      expect(ledger.adds).toEqual([[100_000, 100]]);
      // a stale read is refreshed once for all the admissions waiting on it
      clock.advance(250);
      ledger.holdReads = true;
      const waiting = Array.from({ length: 5 }, () => sut.admit(big, { bytes: 1, objects: 0 }));
      await flush();
      expect(ledger.reads).toHaveLength(1);
      ledger.reads.shift()!();
      expect(await Promise.all(waiting)).toHaveLength(5);
      expect(ledger.gets).toBe(2);
    });

    it('stays exact for one process with no exact headroom: summed, sent and landed changes all count', async () => {
      sut = guard({ ...cheap, exactHeadroom: { ratio: 0, bytes: 0, objects: 0 } });
      const t1 = (await sut.admit(bucket, { bytes: 60, objects: 1 }))!;
      sut.record(bucket, { bytes: 60, objects: 1 }, t1);
      // summed, not sent: still counted
      expect(ledger.adds).toEqual([]);
      expect(await refusal(sut.admit(bucket, { bytes: 41, objects: 0 }))).toBe('QuotaExceeded logs');
      // sent and held in flight while a fresh read (stale base) answers without it
      ledger.holdWrites = true;
      jest.advanceTimersByTime(250);
      clock.advance(250);
      expect(ledger.writes).toHaveLength(1);
      expect(await refusal(sut.admit(bucket, { bytes: 41, objects: 0 }))).toBe('QuotaExceeded logs');
      ledger.holdReads = true;
      clock.advance(250);
      const racing = refusal(sut.admit(bucket, { bytes: 41, objects: 0 }));
      await flush();
      ledger.writes[0].land();
      await flush();
      ledger.value = { bytes: 0, objects: 0 }; // the read began before the update landed and missed it
      ledger.reads.shift()!();
      expect(await racing).toBe('QuotaExceeded logs');
      expect(await refusal(sut.admit(bucket, { bytes: 40, objects: 0 }))).toBe('admitted');
    });

    it('credits a removal still summed at once, and refuses by the objects limit too', async () => {
      sut = guard({ ...cheap, exactHeadroom: { ratio: 0, bytes: 0, objects: 0 } });
      for (let i = 0; i < 3; i++) {
        const t = (await sut.admit(bucket, { bytes: 10, objects: 1 }))!;
        sut.record(bucket, { bytes: 10, objects: 1 }, t);
      }
      // the fourth object is near the limit: a read of its own (the sums are not in it)
      expect(await refusal(sut.admit(bucket, { bytes: 1, objects: 1 }))).toBe('QuotaExceeded logs');
      sut.record(bucket, { bytes: -10, objects: -1 });
      expect(await refusal(sut.admit(bucket, { bytes: 1, objects: 1 }))).toBe('admitted');
      expect(ledger.gets).toBe(2);
      expect(ledger.adds).toEqual([]);
    });

    it('takes the exact path in the last part of the quota: a read per admission and the change written before the response', async () => {
      const t = (await sut.admit(big, { bytes: 9.5 * 2 ** 30, objects: 0 }))!;
      const written = sut.record(big, { bytes: 9.5 * 2 ** 30, objects: 0 }, t);
      expect(written).toBeDefined();
      await written;
      expect(ledger.adds).toEqual([[9.5 * 2 ** 30, 0]]);
      await sut.admit(big, { bytes: 1, objects: 0 });
      await sut.admit(big, { bytes: 1, objects: 0 });
      expect(ledger.gets).toBe(3);
    });

    it('re-reads the ledger of the quota buckets it wrote for their gauges, without admissions, until they go quiet', async () => {
      const observed: number[] = [];
      const metrics = { checked: () => undefined, ledgerWriteFailed: () => undefined, drift: () => undefined, observed: (_b: string, _l: unknown, u: LedgerUsage) => observed.push(u.bytes) };
      sut = new QuotaGuard(ledger as unknown as QuotaLedgerRepository, clock, new JsonLogger('test', 'fatal').forContext('test'), metrics, { ...cheap, gaugeRefreshMs: 15_000 });
      await sut.admit(big, { bytes: 1, objects: 0 });
      expect(observed).toEqual([0]);
      // another gateway (or lifecycle) changes the ledger; the gauge follows without an admission here
      ledger.value = { bytes: 500, objects: 1 };
      jest.advanceTimersByTime(15_000);
      await flush();
      expect(observed).toEqual([0, 500]);
      // ten minutes without a write through this process: no more reads
      clock.advance(10 * 60_000);
      jest.advanceTimersByTime(15_000);
      jest.advanceTimersByTime(15_000);
      await flush();
      expect(observed).toEqual([0, 500]);
    });

    it('sends every summed change when closed, and writes later ones at once', async () => {
      const t = (await sut.admit(big, { bytes: 5, objects: 1 }))!;
      sut.record(big, { bytes: 5, objects: 1 }, t);
      await sut.close();
      expect(ledger.adds).toEqual([[5, 1]]);
      await sut.record(big, { bytes: -5, objects: -1 });
      expect(ledger.adds).toEqual([
        [5, 1],
        [-5, -1],
      ]);
      expect(ledger.value).toEqual({ bytes: 0, objects: 0 });
    });
  });
});
