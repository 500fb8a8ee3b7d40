/** A candidate that failed with a retryable error; `action` labels the failure if retries run out. */
export class RetryableFailure extends Error {
  constructor(
    readonly action: string,
    override readonly cause: unknown,
  ) {
    super((cause as Error)?.message ?? String(cause));
    this.name = 'RetryableFailure';
  }
}
