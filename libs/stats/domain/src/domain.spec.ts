import { createHash } from 'crypto';
import {
  compareEvents,
  CURRENT_LAYOUT,
  dayOf,
  daysOf,
  EVENT_LAYOUTS,
  lastClosedWindow,
  mergeSorted,
  nextRunAt,
  remainingTtlSeconds,
  shardOf,
  windowStart,
} from './index';

describe('shardOf', () => {
  it('is SHA-256 of the id, first 4 bytes big-endian, modulo the layout shards', () => {
    const id = 'evt-42';
    const expected = createHash('sha256').update(id).digest().readUInt32BE(0) % CURRENT_LAYOUT.shards;
    expect(shardOf(id)).toBe(expected);
  });

  it('is stable: known ids keep their shard in layout 1 forever', () => {
    const v1 = EVENT_LAYOUTS.find((l) => l.version === 1)!;
    expect(v1).toEqual({ version: 1, shards: 8, algorithm: 'sha256-be32' });
    // pinned values: a change of the hash would move written events to other partitions
    expect(
      ['a', 'b', 'event-1', '00000000-0000-4000-8000-000000000000'].map((id) => shardOf(id, v1)),
    ).toEqual([2, 6, 7, 0]);
  });

  it('spreads ids over every shard', () => {
    const seen = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`e${i}`)));
    expect(seen.size).toBe(CURRENT_LAYOUT.shards);
  });
});

describe('windows', () => {
  it('puts an instant in its UTC day and 5-minute window', () => {
    const at = new Date('2026-12-01T10:07:59.999Z');
    expect(windowStart(at).toISOString()).toBe('2026-12-01T10:05:00.000Z');
    expect(dayOf(at)).toBe(Math.floor(Date.UTC(2026, 11, 1) / 86_400_000));
    expect(dayOf(new Date('2026-12-01T00:00:00.000Z'))).toBe(dayOf(at));
    expect(dayOf(new Date('2026-11-30T23:59:59.999Z'))).toBe(dayOf(at) - 1);
  });

  it('closes a window once its end is the grace ago', () => {
    expect(lastClosedWindow(new Date('2026-12-01T10:06:00.000Z'), 60_000).toISOString()).toBe(
      '2026-12-01T10:00:00.000Z',
    );
    expect(lastClosedWindow(new Date('2026-12-01T10:05:59.999Z'), 60_000).toISOString()).toBe(
      '2026-12-01T09:55:00.000Z',
    );
  });

  it('lists the days of a half-open range', () => {
    const d = dayOf(new Date('2026-12-01T00:00:00Z'));
    expect(daysOf(new Date('2026-12-01T00:00:00Z'), new Date('2026-12-02T00:00:00Z'))).toEqual([d]);
    expect(daysOf(new Date('2026-11-30T23:00:00Z'), new Date('2026-12-02T00:00:01Z'))).toEqual([
      d - 1,
      d,
      d + 1,
    ]);
    expect(daysOf(new Date('2026-12-02T00:00:00Z'), new Date('2026-12-01T00:00:00Z'))).toEqual([]);
  });
});

describe('remainingTtlSeconds', () => {
  const at = new Date('2026-12-01T00:00:00Z');

  it('counts from the original deadline, so a later replay gets a shorter TTL', () => {
    expect(remainingTtlSeconds(at, 3600, at)).toBe(3600);
    expect(remainingTtlSeconds(at, 3600, new Date(at.getTime() + 1000 * 60 * 10))).toBe(3000);
    expect(remainingTtlSeconds(at, 3600, new Date(at.getTime() + 1500))).toBe(3598);
  });

  it('refuses an item whose deadline has passed', () => {
    expect(remainingTtlSeconds(at, 3600, new Date(at.getTime() + 3600_000))).toBeUndefined();
    expect(remainingTtlSeconds(at, 3600, new Date(at.getTime() + 3599_500))).toBeUndefined();
    expect(remainingTtlSeconds(at, 3600, new Date(at.getTime() + 3599_000))).toBe(1);
  });
});

describe('mergeSorted', () => {
  async function* of<T>(items: T[]): AsyncGenerator<T> {
    for (const i of items) yield i;
  }
  const ev = (t: number, id: string) => ({ occurredAt: new Date(t), eventId: id });

  it('merges sorted sources into one order, ties broken by id', async () => {
    const out = [];
    for await (const e of mergeSorted(
      [of([ev(1, 'b'), ev(3, 'a')]), of([]), of([ev(1, 'a'), ev(2, 'z'), ev(4, 'a')])],
      compareEvents,
    ))
      out.push(`${e.occurredAt.getTime()}${e.eventId}`);
    expect(out).toEqual(['1a', '1b', '2z', '3a', '4a']);
  });

  it('closes every source when the consumer stops early', async () => {
    const closed: number[] = [];
    const source = (n: number) =>
      (async function* () {
        try {
          yield n;
          yield n + 10;
        } finally {
          closed.push(n);
        }
      })();
    for await (const v of mergeSorted([source(1), source(2)], (a, b) => a - b)) if (v === 1) break;
    expect(closed.sort()).toEqual([1, 2]);
  });
});

describe(nextRunAt.name, () => {
  it('runs at the worker offset plus whole intervals, strictly after now', () => {
    expect(nextRunAt(1_000, 300, 70)).toBe(1_270);
    expect(nextRunAt(1_270, 300, 70)).toBe(1_570);
    expect(nextRunAt(1_269, 300, 70)).toBe(1_270);
    expect(nextRunAt(0, 300, 299)).toBe(299);
  });
});
