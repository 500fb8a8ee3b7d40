/**
 * In-memory Bloom filters over the dedup entries of the local store's windows (LocalUsageState
 * keeps them; this module only answers membership). A window's filter holds every event id whose
 * entry the store holds for that window, and maybe more: "not in the filter" means "not stored",
 * so a new event (nearly every one on first delivery) needs no LevelDB lookup; "maybe" is
 * answered by the store. A window without a filter (written before this process opened the
 * store, or dropped to stay within the budget) is answered by the store alone.
 *
 * A filter grows in segments, each four times the capacity of the one before (1,024 ids, 2 KiB
 * first: a small window costs little; 350,000 ids take five segments), at least 12 bits and 8
 * probes per id (each segment well under 1 % false positives); the filters together stay within
 * `maxBytes`, the least recently written ones dropped first.
 */
const BITS_PER_ID = 12;
const PROBES = 8;
const FIRST_CAPACITY = 1024;
const GROWTH = 4;

/**
 * A blocked Bloom filter: an id's probes all fall in one 512-bit block (one cache line), so a
 * lookup costs one memory access per segment however many probes it makes.
 */
class Segment {
  readonly bits: Int32Array;
  /** Blocks - 1 (a power of two). */
  readonly mask: number;
  count = 0;

  constructor(readonly capacity: number) {
    let blocks = 1;
    while (blocks * 512 < capacity * BITS_PER_ID) blocks *= 2;
    this.bits = new Int32Array(blocks * 16);
    this.mask = blocks - 1;
  }

  add(h1: number, h2: number): void {
    const base = (h1 & this.mask) << 4;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h2 + Math.imul(i, (h1 >>> 16) | 1)) & 511;
      this.bits[base + (bit >>> 5)] |= 1 << (bit & 31);
    }
    this.count++;
  }

  has(h1: number, h2: number): boolean {
    const base = (h1 & this.mask) << 4;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h2 + Math.imul(i, (h1 >>> 16) | 1)) & 511;
      if ((this.bits[base + (bit >>> 5)] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** One window's filter. */
export class WindowFilter {
  readonly segments: Segment[] = [];

  get bytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.bits.byteLength;
    return n;
  }

  /** False when the store holds no entry for `id` in the window. */
  mayHold(id: string): boolean {
    hashId(id);
    // newest first: the largest segment, where most ids are
    for (let i = this.segments.length - 1; i >= 0; i--) if (this.segments[i].has(h1, h2)) return true;
    return false;
  }
}

// the id's two 32-bit hashes, set by hashId (no allocation per id)
let h1 = 0;
let h2 = 0;

/**
 * Two 32-bit hashes of the id's UTF-16 code units (in-memory only: never persisted): FNV-1a,
 * then two different finalizers of it. One pass over the id; its 32 bits of state are plenty for
 * segments of at most a few hundred thousand ids.
 */
function hashId(id: string): void {
  let a = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) a = Math.imul(a ^ id.charCodeAt(i), 0x01000193);
  h1 = fmix(a);
  h2 = fmix(a ^ 0x5bd1e995) | 1;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class DedupFilters {
  /** By window key, least recently written first (a write moves a window to the end). */
  private readonly windows = new Map<string, WindowFilter>();
  private totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Bytes the filters hold now. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Windows with a filter now. */
  get size(): number {
    return this.windows.size;
  }

  /** The window's entries were just replaced by exactly `ids`: its filter starts afresh. */
  reset(window: string, ids: readonly string[]): void {
    this.drop(window);
    if (this.maxBytes <= 0) return;
    const f = new WindowFilter();
    this.windows.set(window, f);
    this.addTo(f, ids);
    this.trim();
  }

  /** Entries for `ids` are being added to the window's: its filter, if it has one, takes them first. */
  add(window: string, ids: readonly string[]): void {
    const f = this.windows.get(window);
    if (!f) return;
    this.windows.delete(window);
    this.windows.set(window, f);
    this.addTo(f, ids);
    this.trim();
  }

  /** Forgets a window's filter: the store answers for it from now on. */
  drop(window: string): void {
    const f = this.windows.get(window);
    if (!f) return;
    this.totalBytes -= f.bytes;
    this.windows.delete(window);
  }

  /** Whether the window has a filter. */
  covers(window: string): boolean {
    return this.windows.has(window);
  }

  /** The window's filter, if it has one: only then can an id be known not to be stored. */
  of(window: string): WindowFilter | undefined {
    return this.windows.get(window);
  }

  /** For a covered window: false when the store holds no entry for `id` in it (an uncovered window: true). */
  mayHold(window: string, id: string): boolean {
    return this.windows.get(window)?.mayHold(id) ?? true;
  }

  private addTo(f: WindowFilter, ids: readonly string[]): void {
    let s = f.segments[f.segments.length - 1];
    for (const id of ids) {
      if (!s || s.count >= s.capacity) {
        s = new Segment(s ? s.capacity * GROWTH : FIRST_CAPACITY);
        f.segments.push(s);
        this.totalBytes += s.bits.byteLength;
      }
      hashId(id);
      s.add(h1, h2);
    }
  }

  private trim(): void {
    for (const [window] of this.windows) {
      if (this.totalBytes <= this.maxBytes) return;
      this.drop(window);
    }
  }
}
