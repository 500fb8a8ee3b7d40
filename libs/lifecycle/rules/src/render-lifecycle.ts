import { LifecycleConfiguration, LifecycleFilter, LifecycleRule } from './configuration';
import { escapeXmlText } from '@ostore/s3/protocol';

export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/**
 * The GetBucketLifecycleConfiguration response body. Each rule comes back in the form it was put
 * (rule-level Prefix, Filter with one predicate, or Filter/And), with its ID (generated ones
 * included) and dates as `2026-01-01T00:00:00.000Z`. `parseLifecycleXml` of the result gives the
 * same configuration back. The `x-amz-transition-default-minimum-object-size` header is the
 * caller's to send, from `config.transitionDefaultMinimumObjectSize`.
 */
export function renderLifecycleXml(config: LifecycleConfiguration): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<LifecycleConfiguration xmlns="${S3_XMLNS}">${config.rules.map(renderRule).join('')}</LifecycleConfiguration>`
  );
}

function renderRule(rule: LifecycleRule): string {
  const parts = [el('ID', rule.id), renderScope(rule), el('Status', rule.status)];
  const { expiration } = rule;
  if (expiration !== undefined) {
    let inner = '';
    if (expiration.days !== undefined) inner = el('Days', String(expiration.days));
    else if (expiration.date !== undefined) inner = el('Date', expiration.date);
    else inner = el('ExpiredObjectDeleteMarker', String(expiration.expiredObjectDeleteMarker === true));
    parts.push(`<Expiration>${inner}</Expiration>`);
  }
  for (const t of rule.transitions) {
    const when = t.days !== undefined ? el('Days', String(t.days)) : el('Date', t.date ?? '');
    parts.push(`<Transition>${when}${el('StorageClass', t.storageClass)}</Transition>`);
  }
  for (const t of rule.noncurrentVersionTransitions) {
    parts.push(
      `<NoncurrentVersionTransition>${el('NoncurrentDays', String(t.noncurrentDays))}` +
        (t.newerNoncurrentVersions !== undefined
          ? el('NewerNoncurrentVersions', String(t.newerNoncurrentVersions))
          : '') +
        `${el('StorageClass', t.storageClass)}</NoncurrentVersionTransition>`,
    );
  }
  const nve = rule.noncurrentVersionExpiration;
  if (nve !== undefined) {
    parts.push(
      `<NoncurrentVersionExpiration>${el('NoncurrentDays', String(nve.noncurrentDays))}` +
        (nve.newerNoncurrentVersions !== undefined
          ? el('NewerNoncurrentVersions', String(nve.newerNoncurrentVersions))
          : '') +
        '</NoncurrentVersionExpiration>',
    );
  }
  const abort = rule.abortIncompleteMultipartUpload;
  if (abort !== undefined) {
    parts.push(
      `<AbortIncompleteMultipartUpload>${el('DaysAfterInitiation', String(abort.daysAfterInitiation))}</AbortIncompleteMultipartUpload>`,
    );
  }
  return `<Rule>${parts.join('')}</Rule>`;
}

function renderScope(rule: LifecycleRule): string {
  if (rule.filterForm === 'legacy-prefix') return el('Prefix', rule.filter.prefix ?? '');
  const predicates = renderPredicates(rule.filter);
  return rule.filterForm === 'and'
    ? `<Filter><And>${predicates}</And></Filter>`
    : `<Filter>${predicates}</Filter>`;
}

function renderPredicates(filter: LifecycleFilter): string {
  return (
    (filter.prefix !== undefined ? el('Prefix', filter.prefix) : '') +
    filter.tags.map((t) => `<Tag>${el('Key', t.key)}${el('Value', t.value)}</Tag>`).join('') +
    (filter.objectSizeGreaterThan !== undefined
      ? el('ObjectSizeGreaterThan', String(filter.objectSizeGreaterThan))
      : '') +
    (filter.objectSizeLessThan !== undefined
      ? el('ObjectSizeLessThan', String(filter.objectSizeLessThan))
      : '')
  );
}

function el(name: string, text: string): string {
  return `<${name}>${escapeXmlText(text)}</${name}>`;
}

