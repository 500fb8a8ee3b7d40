/** The `bloomfilter` package (ESM, no types of its own): the part this lib uses. */
declare module 'bloomfilter' {
  export class BloomFilter {
    constructor(m: number | ArrayLike<number>, k: number);
    readonly m: number;
    readonly k: number;
    readonly buckets: Uint32Array;
    add(v: string): void;
    test(v: string): boolean;
    countBits(): number;
    size(): number;
    error(): number;
  }
}
