import { randomUUID } from 'crypto';
import { types } from 'cassandra-driver';
import { EVENT_LAYOUTS } from '@ostore/stats/domain';
import { eventInsertParams, eventPayload, int32, int64, uuidBytes } from './usage-event.entity';

/** The wire values the event rows are written with: the bytes the driver itself would send. */
describe('usage event row values', () => {
  it('writes a bigint / timestamp as 8 bytes big-endian two’s complement', () => {
    const values = [
      0,
      1,
      -1,
      2 ** 32 - 1,
      2 ** 32,
      -(2 ** 32),
      Date.UTC(2026, 11, 5) * 1000,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    for (let i = 0; i < 1000; i++)
      values.push(Math.round((Math.random() - 0.5) * 2 * Number.MAX_SAFE_INTEGER));
    for (const n of values) {
      const expected = Buffer.alloc(8);
      expected.writeBigInt64BE(BigInt(n));
      expect([n, int64(n).toString('hex')]).toEqual([n, expected.toString('hex')]);
      expect(types.Long.fromBytesBE([...int64(n)]).toNumber()).toBe(n);
    }
  });

  it('writes an int as 4 bytes and a uuid as its 16 bytes', () => {
    for (const n of [0, 7, -1, 20_427, 2 ** 31 - 1, -(2 ** 31)]) expect(int32(n).readInt32BE(0)).toBe(n);
    const id = randomUUID();
    expect(uuidBytes(id).toString('hex')).toBe(id.replace(/-/g, ''));
    expect(uuidBytes(id.toUpperCase()).toString('hex')).toBe(id.replace(/-/g, ''));
  });

  it('binds the key, the times and the TTL in wire form and the fields by layout', () => {
    const at = new Date(Date.UTC(2026, 11, 5, 1, 2, 3, 456));
    const e = {
      bucketId: randomUUID(),
      eventId: 'e-1',
      occurredAt: at,
      bucket: 'b',
      kind: 'store',
      bytes: 10,
      source: 'gateway',
      sourceHost: 'h',
    };
    const key = { bucket: uuidBytes(e.bucketId), day: int32(20_427), shard: int32(3) };
    const ttl = int32(3600);
    const [v1, v2] = EVENT_LAYOUTS;
    const times = (p: unknown[], i: number, j: number) => [
      (p[i] as Buffer).readBigInt64BE(0),
      (p[j] as Buffer).readBigInt64BE(0),
    ];
    const compact = eventInsertParams(e, v2, key, ttl);
    expect(compact).toHaveLength(8);
    expect(compact.slice(0, 3)).toEqual([key.bucket, key.day, key.shard]);
    expect(times(compact, 3, 7)).toEqual([BigInt(at.getTime()), BigInt(at.getTime()) * 1000n]);
    expect(compact.slice(4, 7)).toEqual(['e-1', eventPayload(e), ttl]);
    const columns = eventInsertParams(e, v1, key, ttl);
    expect(columns).toHaveLength(13);
    expect(columns.slice(4, 12)).toEqual(['e-1', 'b', 'store', 10, null, 'gateway', 'h', ttl]);
    expect(times(columns, 3, 12)).toEqual([BigInt(at.getTime()), BigInt(at.getTime()) * 1000n]);
  });
});
