/**
 * Page-aligned buffers, so that a block store can write them with O_DIRECT.
 *
 * Why: a buffered write copies every byte into the page cache, and each new page-cache page costs
 * the kernel far more than the copy when the memory behind it is fresh. On the bench's KVM guest a
 * 64 MiB PUT spent 12–17 ms of kernel CPU per MiB in the block store's writes (more than
 * everything else of the upload together); written with O_DIRECT, 0.05–0.15 ms
 * (`tools/bench/micro/direct-io.mjs`). Large-object stores write bodies this way for the same
 * reason: a body just written is rarely read again soon, and the page cache is better left to
 * metadata.
 *
 * O_DIRECT needs the memory, the file offset and the length aligned to the device's logical block
 * size (512 or 4096 bytes). Node cannot allocate aligned memory, but a WebAssembly memory starts
 * on a page boundary, so buffers carved from one at multiples of `DIRECT_IO_ALIGNMENT` are
 * aligned. Only buffers made here are known to be: `isAligned` answers from a registry, never from
 * an address (which JavaScript cannot see).
 */
export const DIRECT_IO_ALIGNMENT = 4096;

const WASM_PAGE = 64 * 1024;

/** The part of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WasmMemoryApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => {
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
  };
}
const wasm = (globalThis as { WebAssembly?: WasmMemoryApi }).WebAssembly;
const alignedBackings = new WeakSet<ArrayBufferLike>();

/**
 * A buffer of `size` bytes starting on a page boundary, with its backing memory rounded up to
 * whole 64 KiB pages. `shared`: the memory is a SharedArrayBuffer (a worker thread
 * can read it without a copy). Undefined where WebAssembly memory cannot be had (`--jitless`, an
 * address-space limit): the caller falls back to ordinary memory.
 */
export function allocateAligned(size: number, options: { shared?: boolean } = {}): Buffer | undefined {
  if (!Number.isSafeInteger(size) || size <= 0) throw new RangeError(`invalid aligned buffer size ${size}`);
  if (!wasm) return undefined;
  const pages = Math.ceil(size / WASM_PAGE);
  let backing: ArrayBuffer | SharedArrayBuffer;
  try {
    // Read once: the same (Shared)ArrayBuffer object stays registered for the memory's lifetime.
    backing = new wasm.Memory({ initial: pages, maximum: pages, shared: options.shared ?? false }).buffer;
  } catch {
    return undefined;
  }
  alignedBackings.add(backing);
  return Buffer.from(backing, 0, size);
}

/** True when `buf` starts on an aligned address: a view at an aligned offset of `allocateAligned` memory. */
export function isAligned(buf: Buffer): boolean {
  return alignedBackings.has(buf.buffer) && buf.byteOffset % DIRECT_IO_ALIGNMENT === 0;
}

/**
 * Aligned pages of `DIRECT_IO_ALIGNMENT` bytes for short-lived scratch use (the zero-padded last
 * page of an O_DIRECT write), carved 16 at a time from one WebAssembly page. Grows with the
 * number of pages in use at once and keeps every page it made.
 */
export class AlignedPages {
  private readonly free: Buffer[] = [];

  /** A page, or undefined where aligned memory cannot be had. */
  acquire(): Buffer | undefined {
    if (this.free.length === 0) {
      const slab = allocateAligned(WASM_PAGE);
      if (!slab) return undefined;
      for (let at = 0; at < WASM_PAGE; at += DIRECT_IO_ALIGNMENT)
        this.free.push(slab.subarray(at, at + DIRECT_IO_ALIGNMENT));
    }
    return this.free.pop();
  }

  release(page: Buffer): void {
    this.free.push(page);
  }
}
