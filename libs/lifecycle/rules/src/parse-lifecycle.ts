import {
  AbortIncompleteMultipartUpload,
  DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE,
  FilterForm,
  LifecycleConfiguration,
  LifecycleExpiration,
  LifecycleFilter,
  LifecycleRule,
  LifecycleTag,
  LifecycleTransition,
  NoncurrentVersionExpiration,
  NoncurrentVersionTransition,
  RuleStatus,
  TRANSITION_STORAGE_CLASSES,
  TransitionDefaultMinimumObjectSize,
  TransitionStorageClass,
} from './configuration';
import { LifecycleConfigurationError } from './errors';
import { INFREQUENT_ACCESS_CLASSES, waterfallRank } from './storage-classes';
import { DAY_MS } from './timing';
import { ElementReader, parseXmlRoot, XmlElement } from './xml-tree';

export const MAX_LIFECYCLE_RULES = 1000;
export const MAX_RULE_ID_LENGTH = 255;
/** AWS documents NewerNoncurrentVersions up to 100; the scanner keeps no more versions than that. */
export const MAX_NEWER_NONCURRENT_VERSIONS = 100;
/** The largest size a filter may name: 1000 × 2^40 bytes. */
export const MAX_FILTER_OBJECT_SIZE = 1_099_511_627_776_000;
/** Days S3 keeps an object out of STANDARD_IA / ONEZONE_IA. */
export const INFREQUENT_ACCESS_MINIMUM_DAYS = 30;

export interface ParseLifecycleOptions {
  /** The request's `x-amz-transition-default-minimum-object-size` header, if any. */
  transitionDefaultMinimumObjectSize?: string;
  /**
   * Drop AWS's 30-day minimum before STANDARD_IA / ONEZONE_IA. Meant for the debug timing, where a
   * "day" lasts seconds and stories must run in a minute; every other check stays AWS's.
   */
  relaxTransitionMinimumDays?: boolean;
}

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

// ---- the schema pass: structure only, every fault MalformedXML -----------------------------------

interface GivenScope {
  form: FilterForm;
  filter: LifecycleFilter;
}

interface GivenExpiration {
  days?: number;
  dateMs?: number;
  expiredObjectDeleteMarker?: boolean;
}

interface GivenTransition {
  days?: number;
  dateMs?: number;
  storageClass: TransitionStorageClass;
}

interface GivenRule {
  id?: string;
  status: RuleStatus;
  scope: GivenScope;
  expiration?: GivenExpiration;
  transitions: GivenTransition[];
  noncurrentTransitions: NoncurrentVersionTransition[];
  noncurrentExpiration?: NoncurrentVersionExpiration;
  abort?: AbortIncompleteMultipartUpload;
}

const RULE_ELEMENTS = [
  'ID',
  'Prefix',
  'Filter',
  'Status',
  'Expiration',
  'Transition',
  'NoncurrentVersionTransition',
  'NoncurrentVersionExpiration',
  'AbortIncompleteMultipartUpload',
];
const PREDICATES = ['Prefix', 'Tag', 'ObjectSizeGreaterThan', 'ObjectSizeLessThan'];

function readRule(element: XmlElement): GivenRule {
  const rule = new ElementReader(element, RULE_ELEMENTS, ['Transition', 'NoncurrentVersionTransition']);
  const status = rule.required('Status').trim();
  if (status !== 'Enabled' && status !== 'Disabled') {
    throw LifecycleConfigurationError.malformed(`Status must be Enabled or Disabled, not "${status}"`);
  }
  const id = rule.text('ID');
  return {
    id: id === '' ? undefined : id,
    status,
    scope: readScope(rule),
    expiration: optional(rule.one('Expiration'), readExpiration),
    transitions: rule.all('Transition').map(readTransition),
    noncurrentTransitions: rule.all('NoncurrentVersionTransition').map(readNoncurrentTransition),
    noncurrentExpiration: optional(rule.one('NoncurrentVersionExpiration'), readNoncurrentExpiration),
    abort: optional(rule.one('AbortIncompleteMultipartUpload'), readAbort),
  };
}

function optional<T>(element: XmlElement | undefined, read: (e: XmlElement) => T): T | undefined {
  return element === undefined ? undefined : read(element);
}

function readScope(rule: ElementReader): GivenScope {
  const legacy = rule.text('Prefix');
  const filter = rule.one('Filter');
  if (legacy !== undefined && filter !== undefined) {
    throw LifecycleConfigurationError.malformed('a rule has both <Prefix> and <Filter>');
  }
  if (legacy !== undefined) return { form: 'legacy-prefix', filter: { prefix: legacy, tags: [] } };
  if (filter === undefined)
    throw LifecycleConfigurationError.malformed('a rule has neither <Filter> nor <Prefix>');
  const reader = new ElementReader(filter, [...PREDICATES, 'And'], ['Tag']);
  if (filter.children.length > 1) {
    throw LifecycleConfigurationError.malformed(
      '<Filter> holds more than one predicate; combine them with <And>',
    );
  }
  const and = reader.one('And');
  if (and === undefined) return { form: 'filter', filter: readPredicates(reader) };
  const inner = new ElementReader(and, PREDICATES, ['Tag']);
  if (and.children.length < 2)
    throw LifecycleConfigurationError.malformed('<And> needs two or more predicates');
  return { form: 'and', filter: readPredicates(inner) };
}

function readPredicates(reader: ElementReader): LifecycleFilter {
  const greater = reader.text('ObjectSizeGreaterThan');
  const less = reader.text('ObjectSizeLessThan');
  return {
    ...(reader.has('Prefix') ? { prefix: reader.text('Prefix') } : {}),
    tags: reader.all('Tag').map(readTag),
    ...(greater !== undefined ? { objectSizeGreaterThan: readLong(greater, 'ObjectSizeGreaterThan') } : {}),
    ...(less !== undefined ? { objectSizeLessThan: readLong(less, 'ObjectSizeLessThan') } : {}),
  };
}

function readTag(element: XmlElement): LifecycleTag {
  const tag = new ElementReader(element, ['Key', 'Value']);
  const key = tag.required('Key');
  if (key === '') throw LifecycleConfigurationError.malformed('a <Tag> has an empty <Key>');
  return { key, value: tag.required('Value') };
}

function readExpiration(element: XmlElement): GivenExpiration {
  const expiration = new ElementReader(element, ['Days', 'Date', 'ExpiredObjectDeleteMarker']);
  if (element.children.length !== 1) {
    throw LifecycleConfigurationError.malformed(
      '<Expiration> takes exactly one of <Days>, <Date>, <ExpiredObjectDeleteMarker>',
    );
  }
  const days = expiration.text('Days');
  const date = expiration.text('Date');
  const marker = expiration.text('ExpiredObjectDeleteMarker');
  if (days !== undefined) return { days: readInt(days, 'Days') };
  if (date !== undefined) return { dateMs: readDate(date) };
  return { expiredObjectDeleteMarker: readBoolean(marker!, 'ExpiredObjectDeleteMarker') };
}

function readTransition(element: XmlElement): GivenTransition {
  const transition = new ElementReader(element, ['Days', 'Date', 'StorageClass']);
  const days = transition.text('Days');
  const date = transition.text('Date');
  if ((days === undefined) === (date === undefined)) {
    throw LifecycleConfigurationError.malformed('<Transition> takes exactly one of <Days> and <Date>');
  }
  return {
    ...(days !== undefined ? { days: readInt(days, 'Days') } : { dateMs: readDate(date!) }),
    storageClass: readStorageClass(transition),
  };
}

function readNoncurrentTransition(element: XmlElement): NoncurrentVersionTransition {
  const transition = new ElementReader(element, [
    'NoncurrentDays',
    'NewerNoncurrentVersions',
    'StorageClass',
  ]);
  const newer = transition.text('NewerNoncurrentVersions');
  return {
    noncurrentDays: readInt(transition.required('NoncurrentDays'), 'NoncurrentDays'),
    ...(newer !== undefined ? { newerNoncurrentVersions: readInt(newer, 'NewerNoncurrentVersions') } : {}),
    storageClass: readStorageClass(transition),
  };
}

function readNoncurrentExpiration(element: XmlElement): NoncurrentVersionExpiration {
  const expiration = new ElementReader(element, ['NoncurrentDays', 'NewerNoncurrentVersions']);
  const newer = expiration.text('NewerNoncurrentVersions');
  return {
    noncurrentDays: readInt(expiration.required('NoncurrentDays'), 'NoncurrentDays'),
    ...(newer !== undefined ? { newerNoncurrentVersions: readInt(newer, 'NewerNoncurrentVersions') } : {}),
  };
}

function readAbort(element: XmlElement): AbortIncompleteMultipartUpload {
  const abort = new ElementReader(element, ['DaysAfterInitiation']);
  return { daysAfterInitiation: readInt(abort.required('DaysAfterInitiation'), 'DaysAfterInitiation') };
}

function readStorageClass(reader: ElementReader): TransitionStorageClass {
  const value = reader.required('StorageClass').trim();
  const known = TRANSITION_STORAGE_CLASSES.find((c) => c === value);
  if (known === undefined)
    throw LifecycleConfigurationError.malformed(`"${value}" is not a transition storage class`);
  return known;
}

/** An `xs:int`: digits with an optional sign, within 32 bits. The sign is judged later, by value. */
function readInt(text: string, name: string): number {
  const value = text.trim();
  if (!/^[+-]?\d+$/.test(value)) throw LifecycleConfigurationError.malformed(`<${name}> is not an integer`);
  const n = Number(value);
  if (n > 2_147_483_647 || n < -2_147_483_648)
    throw LifecycleConfigurationError.malformed(`<${name}> is out of range`);
  return n;
}

/** An `xs:long`; its range is checked later with S3's message. */
function readLong(text: string, name: string): number {
  const value = text.trim();
  if (!/^[+-]?\d+$/.test(value)) throw LifecycleConfigurationError.malformed(`<${name}> is not an integer`);
  return Number(value);
}

function readBoolean(text: string, name: string): boolean {
  const value = text.trim();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw LifecycleConfigurationError.malformed(`<${name}> is not a boolean`);
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or date-time (a time without an offset is UTC) as epoch ms. Anything else is
 * MalformedXML, as S3 answers `20200101`; whether it is a midnight is judged later (InvalidArgument).
 * A non-zero fraction finer than a millisecond rounds up, so it can never pass for a midnight.
 */
function readDate(text: string): number {
  const m = ISO_8601.exec(text.trim());
  if (m === null) throw LifecycleConfigurationError.malformed(`Date "${text}" is not ISO 8601`);
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    Number(v ?? 0),
  );
  const fraction = m[7] ?? '';
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(local);
  if (
    month < 1 ||
    month > 12 ||
    check.getUTCDate() !== day ||
    check.getUTCMonth() !== month - 1 ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw LifecycleConfigurationError.malformed(`Date "${text}" is not a valid date`);
  }
  let ms = local + Math.ceil(Number(`0.${fraction || '0'}`) * 1000);
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ms;
}

// ---- the value pass: AWS's InvalidArgument / InvalidRequest answers ---------------------------------

function validateRules(given: readonly GivenRule[], options: ParseLifecycleOptions): LifecycleRule[] {
  if (given.length === 0)
    throw LifecycleConfigurationError.invalidRequest('At least one lifecycle rule must be specified.');
  if (given.length > MAX_LIFECYCLE_RULES) {
    throw LifecycleConfigurationError.invalidRequest(
      `The number of lifecycle rules must not exceed the allowed limit of ${MAX_LIFECYCLE_RULES} rules.`,
    );
  }
  const ids = new Set<string>();
  for (const rule of given) {
    if (rule.id === undefined) continue;
    if (rule.id.length > MAX_RULE_ID_LENGTH) {
      throw LifecycleConfigurationError.invalidArgument(
        `ID length should not exceed allowed limit of ${MAX_RULE_ID_LENGTH}`,
      );
    }
    if (ids.has(rule.id)) {
      throw LifecycleConfigurationError.invalidArgument(
        'Rule ID must be unique. Found same ID for more than one rule',
      );
    }
    ids.add(rule.id);
  }
  // S3 reads a configuration as "Lifecycle V2" when its first rule has a Filter, and then refuses the
  // rule-level Prefix of V1 beside it (and the other way round); NewerNoncurrentVersions is V2-only.
  const v2 = given[0].scope.form !== 'legacy-prefix';
  for (const rule of given) {
    if (v2 && rule.scope.form === 'legacy-prefix') {
      throw LifecycleConfigurationError.invalidRequest(
        'Base level prefix cannot be used in Lifecycle V2, prefixes are only supported in the Filter.',
      );
    }
    if (!v2 && rule.scope.form !== 'legacy-prefix') {
      throw LifecycleConfigurationError.invalidRequest('Filter element can only be used in Lifecycle V2.');
    }
    validateRule(rule, v2, options);
  }
  if (!v2) rejectOverlappingPrefixes(given);
  return nameRules(given).map((id, i) => toRule(given[i], id));
}

function validateRule(rule: GivenRule, v2: boolean, options: ParseLifecycleOptions): void {
  const { filter } = rule.scope;
  const where = describeFilter(rule.scope);
  if (
    rule.expiration === undefined &&
    rule.transitions.length === 0 &&
    rule.noncurrentTransitions.length === 0 &&
    rule.noncurrentExpiration === undefined &&
    rule.abort === undefined
  ) {
    throw LifecycleConfigurationError.invalidRequest('At least one action needs to be specified in a rule');
  }
  validateFilter(filter);
  const hasTags = filter.tags.length > 0;
  const hasSizes = filter.objectSizeGreaterThan !== undefined || filter.objectSizeLessThan !== undefined;

  const expiration = rule.expiration;
  if (expiration?.days !== undefined && expiration.days <= 0) {
    throw LifecycleConfigurationError.invalidArgument(
      "'Days' for Expiration action must be a positive integer",
    );
  }
  if (expiration?.dateMs !== undefined) requireMidnight(expiration.dateMs);
  if (expiration?.expiredObjectDeleteMarker !== undefined) {
    // Delete markers carry no tags and no size, so such a filter could never select one.
    if (hasTags)
      throw LifecycleConfigurationError.invalidRequest(
        'ExpiredObjectDeleteMarker cannot be specified with Tags.',
      );
    if (hasSizes) {
      throw LifecycleConfigurationError.invalidRequest(
        'ExpiredObjectDeleteMarker cannot be specified with Object Size.',
      );
    }
  }

  validateTransitions(rule, where, options);
  validateNoncurrent(rule, v2, where, options);

  if (rule.abort !== undefined) {
    if (rule.abort.daysAfterInitiation <= 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
      );
    }
    // An upload in progress has neither tags nor a size yet.
    if (hasTags)
      throw LifecycleConfigurationError.invalidRequest(
        'AbortIncompleteMultipartUpload cannot be specified with Tags.',
      );
    if (hasSizes) {
      throw LifecycleConfigurationError.invalidRequest(
        'AbortIncompleteMultipartUpload cannot be specified with Object Size.',
      );
    }
  }
}

function validateFilter(filter: LifecycleFilter): void {
  const keys = new Set<string>();
  for (const tag of filter.tags) {
    if (keys.has(tag.key))
      throw LifecycleConfigurationError.invalidRequest('Duplicate Tag Keys are not allowed.');
    keys.add(tag.key);
  }
  const { objectSizeGreaterThan: greater, objectSizeLessThan: less } = filter;
  if (greater !== undefined && (greater < 0 || greater > MAX_FILTER_OBJECT_SIZE)) {
    throw LifecycleConfigurationError.invalidRequest(
      `'ObjectSizeGreaterThan' should be between 0 and ${MAX_FILTER_OBJECT_SIZE}.`,
    );
  }
  if (less !== undefined && (less < 1 || less > MAX_FILTER_OBJECT_SIZE)) {
    throw LifecycleConfigurationError.invalidRequest(
      `'ObjectSizeLessThan' should be between 1 and ${MAX_FILTER_OBJECT_SIZE}.`,
    );
  }
  if (greater !== undefined && less !== undefined && greater >= less) {
    throw LifecycleConfigurationError.invalidRequest(
      "'ObjectSizeLessThan' has to be a value greater than 'ObjectSizeGreaterThan'.",
    );
  }
}

function validateTransitions(rule: GivenRule, where: string, options: ParseLifecycleOptions): void {
  const seen = new Set<TransitionStorageClass>();
  for (const transition of rule.transitions) {
    if (transition.days !== undefined) {
      if (transition.days < 0) {
        throw LifecycleConfigurationError.invalidArgument("'Days' in Transition action must be nonnegative");
      }
      if (
        !options.relaxTransitionMinimumDays &&
        INFREQUENT_ACCESS_CLASSES.includes(transition.storageClass) &&
        transition.days < INFREQUENT_ACCESS_MINIMUM_DAYS
      ) {
        throw LifecycleConfigurationError.invalidArgument(
          `'Days' in Transition action must be greater than or equal to ${INFREQUENT_ACCESS_MINIMUM_DAYS} for storageClass '${transition.storageClass}'`,
        );
      }
    } else {
      requireMidnight(transition.dateMs!);
    }
    if (seen.has(transition.storageClass)) {
      throw LifecycleConfigurationError.invalidRequest(
        `'StorageClass' must be different for 'Transition' actions in same 'Rule' with filter '${where}'`,
      );
    }
    seen.add(transition.storageClass);
  }
  const bases = new Set(rule.transitions.map((t) => (t.days !== undefined ? 'Days' : 'Date')));
  if (bases.size > 1) {
    throw LifecycleConfigurationError.invalidRequest(
      `Found mixed 'Date' and 'Days' based Transition actions in lifecycle rule for filter '${where}'`,
    );
  }
  const expiration = rule.expiration;
  const expirationBase =
    expiration?.days !== undefined ? 'Days' : expiration?.dateMs !== undefined ? 'Date' : undefined;
  if (bases.size === 1 && expirationBase !== undefined && !bases.has(expirationBase)) {
    throw LifecycleConfigurationError.invalidRequest(
      `Found mixed 'Date' and 'Days' based Expiration and Transition actions in lifecycle rule for filter '${where}'`,
    );
  }
  const field = bases.has('Date') ? 'Date' : 'Days';
  const when = (t: GivenTransition) => t.days ?? t.dateMs!;
  const ordered = [...rule.transitions].sort(
    (a, b) => waterfallRank(a.storageClass) - waterfallRank(b.storageClass),
  );
  for (let i = 1; i < ordered.length; i++) {
    const [warmer, colder] = [ordered[i - 1], ordered[i]];
    if (when(colder) <= when(warmer)) {
      throw LifecycleConfigurationError.invalidArgument(
        `'${field}' in the Transition action for StorageClass '${colder.storageClass}' for filter '${where}' must be greater than '${field}' in the Transition action for StorageClass '${warmer.storageClass}' for filter '${where}'`,
      );
    }
  }
  const expiresAt = expiration?.days ?? expiration?.dateMs;
  if (expiresAt !== undefined && rule.transitions.some((t) => expiresAt <= when(t))) {
    throw LifecycleConfigurationError.invalidArgument(
      `'${field}' in the Expiration action for filter '${where}' must be greater than '${field}' in the Transition action`,
    );
  }
}

function validateNoncurrent(
  rule: GivenRule,
  v2: boolean,
  where: string,
  options: ParseLifecycleOptions,
): void {
  const newer = (count: number | undefined) => {
    if (count === undefined) return;
    if (!v2) {
      throw LifecycleConfigurationError.invalidRequest(
        'NewerNoncurrentVersions element can only be used in Lifecycle V2.',
      );
    }
    if (count < 1)
      throw LifecycleConfigurationError.invalidArgument(
        "'NewerNoncurrentVersions' must be a positive integer",
      );
    if (count > MAX_NEWER_NONCURRENT_VERSIONS) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NewerNoncurrentVersions' must not exceed ${MAX_NEWER_NONCURRENT_VERSIONS}`,
      );
    }
  };
  const expiration = rule.noncurrentExpiration;
  if (expiration !== undefined) {
    if (expiration.noncurrentDays <= 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
      );
    }
    newer(expiration.newerNoncurrentVersions);
  }
  const seen = new Set<TransitionStorageClass>();
  for (const transition of rule.noncurrentTransitions) {
    if (transition.noncurrentDays < 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'NoncurrentDays' in NoncurrentVersionTransition action must be nonnegative",
      );
    }
    if (
      !options.relaxTransitionMinimumDays &&
      INFREQUENT_ACCESS_CLASSES.includes(transition.storageClass) &&
      transition.noncurrentDays < INFREQUENT_ACCESS_MINIMUM_DAYS
    ) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NoncurrentDays' in NoncurrentVersionTransition action must be greater than or equal to ${INFREQUENT_ACCESS_MINIMUM_DAYS} for storageClass '${transition.storageClass}'`,
      );
    }
    newer(transition.newerNoncurrentVersions);
    if (seen.has(transition.storageClass)) {
      throw LifecycleConfigurationError.invalidRequest(
        `'StorageClass' must be different for 'NoncurrentVersionTransition' actions in same 'Rule' with filter '${where}'`,
      );
    }
    seen.add(transition.storageClass);
  }
  const ordered = [...rule.noncurrentTransitions].sort(
    (a, b) => waterfallRank(a.storageClass) - waterfallRank(b.storageClass),
  );
  for (let i = 1; i < ordered.length; i++) {
    const [warmer, colder] = [ordered[i - 1], ordered[i]];
    if (colder.noncurrentDays <= warmer.noncurrentDays) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass '${colder.storageClass}' for filter '${where}' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass '${warmer.storageClass}' for filter '${where}'`,
      );
    }
  }
  if (expiration !== undefined && ordered.some((t) => expiration.noncurrentDays <= t.noncurrentDays)) {
    throw LifecycleConfigurationError.invalidArgument(
      `'NoncurrentDays' in the NoncurrentVersionExpiration action for filter '${where}' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action`,
    );
  }
}

function requireMidnight(ms: number): void {
  if (ms % DAY_MS !== 0) throw LifecycleConfigurationError.invalidArgument("'Date' must be at midnight GMT");
}

/**
 * Lifecycle V1 has no way to order overlapping rules, so S3 refuses two rules taking the same kind
 * of action whose prefixes overlap (one begins the other).
 */
function rejectOverlappingPrefixes(given: readonly GivenRule[]): void {
  const kinds: [string, (r: GivenRule) => boolean][] = [
    ['Expiration', (r) => r.expiration !== undefined],
    ['Transition', (r) => r.transitions.length > 0],
    ['NoncurrentVersionTransition', (r) => r.noncurrentTransitions.length > 0],
    ['NoncurrentVersionExpiration', (r) => r.noncurrentExpiration !== undefined],
    ['AbortIncompleteMultipartUpload', (r) => r.abort !== undefined],
  ];
  for (const [kind, takes] of kinds) {
    const prefixes = given
      .filter(takes)
      .map((r) => r.scope.filter.prefix ?? '')
      .sort();
    for (let i = 1; i < prefixes.length; i++) {
      if (prefixes[i].startsWith(prefixes[i - 1])) {
        throw LifecycleConfigurationError.invalidRequest(
          `Found overlapping prefixes '${prefixes[i - 1]}' and '${prefixes[i]}' for same action type '${kind}'`,
        );
      }
    }
  }
}

/** AWS's rendering of a rule's filter in its messages, e.g. `(prefix=logs/ and objectsizelessthan=120)`. */
function describeFilter(scope: GivenScope): string {
  const { filter } = scope;
  const parts: string[] = [];
  if (filter.prefix !== undefined) parts.push(`prefix=${filter.prefix}`);
  for (const tag of filter.tags) parts.push(`tag={key=${tag.key}, value=${tag.value}}`);
  if (filter.objectSizeGreaterThan !== undefined)
    parts.push(`objectsizegreaterthan=${filter.objectSizeGreaterThan}`);
  if (filter.objectSizeLessThan !== undefined) parts.push(`objectsizelessthan=${filter.objectSizeLessThan}`);
  return parts.length === 0 ? '(prefix=)' : `(${parts.join(' and ')})`;
}

/**
 * Every rule's ID: its own, or `rule-<position>` (1-based), or `rule-<position>-<n>` (n ≥ 2) when
 * that is taken by another rule. Deterministic, so re-putting the same document yields the same IDs.
 */
function nameRules(given: readonly GivenRule[]): string[] {
  const taken = new Set(given.flatMap((r) => (r.id === undefined ? [] : [r.id])));
  return given.map((rule, i) => {
    if (rule.id !== undefined) return rule.id;
    let id = `rule-${i + 1}`;
    for (let n = 2; taken.has(id); n++) id = `rule-${i + 1}-${n}`;
    taken.add(id);
    return id;
  });
}

function toRule(rule: GivenRule, id: string): LifecycleRule {
  const iso = (ms: number) => new Date(ms).toISOString();
  const expiration = rule.expiration;
  let outExpiration: LifecycleExpiration | undefined;
  if (expiration?.days !== undefined) outExpiration = { days: expiration.days };
  else if (expiration?.dateMs !== undefined) outExpiration = { date: iso(expiration.dateMs) };
  else if (expiration !== undefined)
    outExpiration = { expiredObjectDeleteMarker: expiration.expiredObjectDeleteMarker };
  const transitions: LifecycleTransition[] = rule.transitions.map((t) =>
    t.days !== undefined
      ? { days: t.days, storageClass: t.storageClass }
      : { date: iso(t.dateMs!), storageClass: t.storageClass },
  );
  return {
    id,
    status: rule.status,
    filterForm: rule.scope.form,
    filter: rule.scope.filter,
    ...(outExpiration !== undefined ? { expiration: outExpiration } : {}),
    transitions,
    noncurrentVersionTransitions: rule.noncurrentTransitions,
    ...(rule.noncurrentExpiration !== undefined
      ? { noncurrentVersionExpiration: rule.noncurrentExpiration }
      : {}),
    ...(rule.abort !== undefined ? { abortIncompleteMultipartUpload: rule.abort } : {}),
  };
}
