import { DEFAULT_BLOCK_SIZE, resolveBlockLifecycle, sharedBuffersFor } from './block-lifecycle.settings';

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

  it('turns the write buffer memory into whole blocks, never fewer than one body needs', () => {
    expect(sharedBuffersFor(resolveBlockLifecycle())).toBe(12); // 96 MiB of 8 MiB blocks
    expect(sharedBuffersFor(resolveBlockLifecycle({ writeBufferBytes: 100 * 2 ** 20, blockSize: 16 * 2 ** 20 }))).toBe(6);
    expect(sharedBuffersFor(resolveBlockLifecycle({ writeBufferBytes: 2 ** 20 }))).toBe(2);
    expect(() => resolveBlockLifecycle({ writeBufferBytes: 0 })).toThrow(/writeBufferBytes/);
  });
});
