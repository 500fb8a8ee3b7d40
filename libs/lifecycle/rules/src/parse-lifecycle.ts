import {
  DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE,
  LifecycleConfiguration,
  TransitionDefaultMinimumObjectSize,
} from './configuration';
import { LifecycleConfigurationError } from './errors';
import { readRule } from './read-lifecycle-xml';
import { ParseLifecycleOptions, validateRules } from './validate-lifecycle';
import { ElementReader, parseXmlRoot } from './xml-tree';

export {
  INFREQUENT_ACCESS_MINIMUM_DAYS,
  MAX_FILTER_OBJECT_SIZE,
  MAX_LIFECYCLE_RULES,
  MAX_NEWER_NONCURRENT_VERSIONS,
  MAX_RULE_ID_LENGTH,
} from './validate-lifecycle';
export type { ParseLifecycleOptions } from './validate-lifecycle';

/**
 * Parses and validates a PutBucketLifecycleConfiguration body as S3 does: first against the schema
 * (every structural fault is MalformedXML), then the values (InvalidArgument / InvalidRequest with
 * AWS's messages). Rules given no ID (or an empty one) get `rule-<position>` (1-based), or
 * `rule-<position>-<n>` if another rule already carries that ID: deterministic, where AWS makes a
 * random one.
 *
 * @throws LifecycleConfigurationError
 */
export function parseLifecycleXml(
  body: string | Uint8Array,
  options: ParseLifecycleOptions = {},
): LifecycleConfiguration {
  const minimumSize = parseMinimumObjectSize(options.transitionDefaultMinimumObjectSize);
  const root = parseXmlRoot(body);
  if (root.name !== 'LifecycleConfiguration') {
    throw LifecycleConfigurationError.malformed(
      `root element is <${root.name}>, not <LifecycleConfiguration>`,
    );
  }
  const given = new ElementReader(root, ['Rule'], ['Rule']).all('Rule').map(readRule);
  const rules = validateRules(given, options);
  return { rules, transitionDefaultMinimumObjectSize: minimumSize };
}

/** The header's value; absent means AWS's default. */
export function parseMinimumObjectSize(header: string | undefined): TransitionDefaultMinimumObjectSize {
  if (header === undefined || header === '') return DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE;
  if (header === 'all_storage_classes_128K' || header === 'varies_by_storage_class') return header;
  throw LifecycleConfigurationError.invalidRequest('Invalid TransitionDefaultMinimumObjectSize found');
}
