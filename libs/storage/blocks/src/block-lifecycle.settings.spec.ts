import { DEFAULT_BLOCK_SIZE, resolveBlockLifecycle } from './block-lifecycle.settings';

describe(resolveBlockLifecycle.name, () => {
  it('defaults to 8 MiB blocks, a 1 h in-flight TTL and a grace equal to it', () => {
    const sut = resolveBlockLifecycle();
    expect(sut.blockSize).toBe(DEFAULT_BLOCK_SIZE);
    expect(sut.inFlightTtlSeconds).toBe(3600);
    expect(sut.gcGraceMs).toBe(3_600_000);
  });

  it('lists every bad setting at once', () => {
    expect(() => resolveBlockLifecycle({ blockSize: 0, gcShards: 1.5, candidateTtlSeconds: 3600 })).toThrow(
      /blockSize.*gcShards.*candidateTtlSeconds/,
    );
  });
});
