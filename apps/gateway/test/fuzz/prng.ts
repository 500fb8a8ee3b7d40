/**
 * A small seeded PRNG (mulberry32) with the picks the fuzz generators need. Every case gets its
 * own generator derived from (run seed, case index), so one case is reproducible on its own
 * whatever order the concurrent run finished in.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The generator of case `index` of the run seeded `seed`. */
  static forCase(seed: number, index: number): Prng {
    return new Prng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Calls one of the weighted alternatives. */
  oneOf<T>(alternatives: ReadonlyArray<[weight: number, make: () => T]>): T {
    const total = alternatives.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, make] of alternatives) {
      if ((r -= w) < 0) return make();
    }
    return alternatives[alternatives.length - 1][1]();
  }

  /** A string of `length` characters drawn from `alphabet`. */
  string(alphabet: string, length: number): string {
    const chars = Array.from(alphabet);
    let s = '';
    for (let i = 0; i < length; i++) s += this.pick(chars);
    return s;
  }

  bytes(length: number): Buffer {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = this.int(0, 255);
    return b;
  }
}
