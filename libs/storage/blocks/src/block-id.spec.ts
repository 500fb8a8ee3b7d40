import { assertBlockId, newBlockId, shardOf } from './block-id';

describe(newBlockId.name, () => {
  it('makes 128-bit hex ids that never repeat', () => {
    const ids = Array.from({ length: 1000 }, newBlockId);
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe(assertBlockId.name, () => {
  it.each(['../etc/passwd', 'a/b', '', 'x'.repeat(200), 'abc'])('rejects %j', (id) => {
    expect(() => assertBlockId(id)).toThrow(/invalid block id/);
  });
});

describe(shardOf.name, () => {
  it('is stable and spreads random ids over every shard', () => {
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 16000; i++) counts[shardOf(newBlockId(), 16)]++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    const id = newBlockId();
    expect(shardOf(id, 16)).toBe(shardOf(id, 16));
  });
});
