import { AlignedPages, allocateAligned, DIRECT_IO_ALIGNMENT, isAligned } from './aligned-memory';

describe(allocateAligned.name, () => {
  it('gives a buffer of the size asked for, known as aligned, over whole 64 KiB pages', () => {
    const buf = allocateAligned(100_000)!;
    expect(buf.length).toBe(100_000);
    expect(buf.buffer.byteLength).toBe(2 * 65536);
    expect(isAligned(buf)).toBe(true);
    expect(isAligned(buf.subarray(DIRECT_IO_ALIGNMENT))).toBe(true);
    expect(isAligned(buf.subarray(512))).toBe(false);
  });

  it('can be shared memory, which a worker thread reads without a copy', () => {
    const buf = allocateAligned(10, { shared: true })!;
    expect(buf.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(isAligned(buf)).toBe(true);
  });

  it('never calls ordinary memory aligned, whatever its address', () => {
    expect(isAligned(Buffer.alloc(8192))).toBe(false);
    expect(isAligned(Buffer.allocUnsafeSlow(1 << 20))).toBe(false);
    expect(isAligned(Buffer.from(new SharedArrayBuffer(65536)))).toBe(false);
  });

  it('refuses sizes that are not positive integers', () => {
    expect(() => allocateAligned(0)).toThrow(/invalid aligned buffer size 0/);
    expect(() => allocateAligned(1.5)).toThrow(RangeError);
  });
});

describe(AlignedPages.name, () => {
  it('hands out distinct aligned pages, more once the first slab is taken, and reuses released ones', () => {
    const sut = new AlignedPages();
    const pages = Array.from({ length: 20 }, () => sut.acquire()!);
    expect(pages.every((p) => p.length === DIRECT_IO_ALIGNMENT && isAligned(p))).toBe(true);
    pages.forEach((p, i) => p.fill(i));
    // Distinct memory: each page still holds its own fill.
    expect(pages.every((p, i) => p.every((b) => b === i))).toBe(true);
    sut.release(pages[3]);
    expect(sut.acquire()).toBe(pages[3]);
  });
});
