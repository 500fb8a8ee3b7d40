import { normalizeEtag } from './checksums';
import { noSuchKey, s3err } from './errors';

/** S3's answer to a conditional write against the current object's ETag (undefined: no current object, or a delete marker). */
export function checkWriteCondition(key: string, currentEtag: string | undefined, ifNoneMatch: string | undefined, ifMatch: string | undefined): void {
  if (ifMatch !== undefined) {
    if (currentEtag === undefined) throw noSuchKey(key);
    const wanted = ifMatch.split(',').map((e) => normalizeEtag(e));
    if (!wanted.includes('*') && !wanted.includes(normalizeEtag(currentEtag)))
      throw s3err('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' });
  }
  if (ifNoneMatch !== undefined && currentEtag !== undefined)
    throw s3err('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-None-Match' });
}
