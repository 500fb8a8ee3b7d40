import {
  AbortIncompleteMultipartUpload,
  FilterForm,
  LifecycleFilter,
  LifecycleTag,
  NoncurrentVersionExpiration,
  NoncurrentVersionTransition,
  RuleStatus,
  TRANSITION_STORAGE_CLASSES,
  TransitionStorageClass,
} from './configuration';
import { LifecycleConfigurationError } from './errors';
import { ElementReader, XmlElement } from './xml-tree';

// ---- the schema pass: structure only, every fault MalformedXML -----------------------------------

/** How a rule names its objects, as given. */
export interface GivenScope {
  form: FilterForm;
  filter: LifecycleFilter;
}

/** An `<Expiration>` as given (a date as epoch ms, judged later). */
export interface GivenExpiration {
  days?: number;
  dateMs?: number;
  expiredObjectDeleteMarker?: boolean;
}

/** A `<Transition>` as given. */
export interface GivenTransition {
  days?: number;
  dateMs?: number;
  storageClass: TransitionStorageClass;
}

/** A `<Rule>` after the schema pass, before the value pass. */
export interface GivenRule {
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

/** A `<Rule>` as given, checked against the schema only (every fault MalformedXML). */
export function readRule(element: XmlElement): GivenRule {
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
