/**
 * A bucket policy refused on PUT. S3 answers `MalformedPolicy` (400) with `message` as the
 * reason, in AWS's wording ("Policy has invalid resource", "Invalid principal in policy", ...).
 */
export class MalformedPolicyError extends Error {
  readonly code = 'MalformedPolicy';

  constructor(message: string) {
    super(message);
    this.name = 'MalformedPolicyError';
  }
}
