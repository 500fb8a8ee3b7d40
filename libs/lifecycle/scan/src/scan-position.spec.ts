import { COMPLETED, decodeStatus, encodeStatus, SCAN_START } from './scan-position';
import { MIN_TOKEN } from './token-ring';

describe(encodeStatus.name, () => {
  it('round-trips positions with bigint tokens, and completed', () => {
    const p = { token: -(2n ** 62n) - 7n, partition: { bucketId: 'b', parent: 'a/"x"/', afterName: 'ü.txt' } };
    expect(decodeStatus(encodeStatus(p))).toEqual(p);
    expect(decodeStatus(encodeStatus({ token: 5n }))).toEqual({ token: 5n });
    expect(decodeStatus(encodeStatus(COMPLETED))).toBe(COMPLETED);
  });

  it('restarts from the beginning on anything unreadable', () => {
    for (const bad of [undefined, '', '{', '{"t":1.5}', '{"t":"x"}', 'null'])
      expect(decodeStatus(bad as string)).toEqual(SCAN_START);
    expect(SCAN_START.token).toBe(MIN_TOKEN);
  });
});
