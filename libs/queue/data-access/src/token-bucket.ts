/**
 * Per-partition rate limit (messages per second). `reserve(n)` takes n tokens at once, going
 * into debt when there are not enough, and says how long to wait before using them: a batch
 * larger than the burst is allowed, the average rate is still kept. Pure: time comes from `now`.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst = Math.max(1, ratePerSecond),
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond))
      throw new Error(`rate must be a positive number of messages per second (got ${ratePerSecond})`);
    this.tokens = this.burst;
    this.at = this.now();
  }

  /** Takes `n` tokens; returns the milliseconds to wait before the n messages may be processed. */
  reserve(n: number): number {
    const t = this.now();
    // max(0, ...): a wall clock stepped back never drains the bucket.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, t - this.at) * this.ratePerSecond) / 1000);
    this.at = t;
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.ratePerSecond;
  }
}
