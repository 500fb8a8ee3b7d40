import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ChecksumAlgorithm, isValidChecksumValue } from './checksums';
import { escapeXmlText, S3Error } from './errors';
import { isoDate, quoteEtag } from './http-semantics';

/** XML of the S3 REST API: a response builder and strict parsers of request bodies. */

export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

export type XmlValue = string | number | bigint | boolean | Date | null | undefined | XmlObject | XmlValue[];
export interface XmlObject {
  [name: string]: XmlValue;
}

export interface ToXmlOptions {
  /** The root's namespace: S3's by default, as S3 answers; `null` for none. */
  xmlns?: string | null;
}

/**
 * Renders `<rootName>` with `value` as its content, in the object's key order. An array renders
 * one element per item under the key's name (S3's flattened lists); `null`/`undefined` render
 * nothing; `''` an empty element; a Date ISO 8601 with milliseconds; a key starting with `@` is
 * an attribute of its element (`{'@xsi:type': 'CanonicalUser'}`). A scalar value is the root's text.
 */
export function toXml(rootName: string, value: XmlValue, options: ToXmlOptions = {}): string {
  const xmlns = options.xmlns === undefined ? S3_XMLNS : options.xmlns;
  const content =
    value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value)
      ? value
      : { '#text': value };
  return `${XML_DECLARATION}\n${renderElement(rootName, xmlns === null ? content : { '@xmlns': xmlns, ...content })}`;
}

/**
 * Like {@link toXml} for content whose element order does not follow one object's keys, e.g.
 * ListObjectVersions' interleaved `Version` and `DeleteMarker` elements.
 */
export function toXmlOrdered(
  rootName: string,
  entries: [string, XmlValue][],
  options: ToXmlOptions = {},
): string {
  const xmlns = options.xmlns === undefined ? S3_XMLNS : options.xmlns;
  const attribute = xmlns === null ? '' : ` xmlns="${escapeXmlText(xmlns)}"`;
  return `${XML_DECLARATION}\n<${rootName}${attribute}>${entries.map(([name, v]) => renderElement(name, v)).join('')}</${rootName}>`;
}

function renderElement(name: string, value: XmlValue): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => renderElement(name, item)).join('');
  if (typeof value !== 'object' || value instanceof Date) return `<${name}>${renderScalar(value)}</${name}>`;
  let attributes = '';
  let children = '';
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('@')) {
      if (child !== null && child !== undefined)
        attributes += ` ${key.slice(1)}="${renderScalar(child as Scalar)}"`;
    } else if (key === '#text') {
      if (child !== null && child !== undefined) children += renderScalar(child as Scalar);
    } else {
      children += renderElement(key, child);
    }
  }
  return `<${name}${attributes}>${children}</${name}>`;
}

type Scalar = string | number | bigint | boolean | Date;

function renderScalar(value: Scalar): string {
  if (value instanceof Date) return isoDate(value);
  return escapeXmlText(String(value));
}

/** A parsed element: its children in document order and its own text (entities decoded). */
export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  // We decode entities ourselves: the library also expands HTML names and leaves unknown ones.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '__cdata',
});

/**
 * Parses a request body and checks its root element (local name; namespaces are ignored).
 * MalformedXML as {@link parseXmlDocument} refuses, or when the root is another element.
 */
export function parseXmlBody(text: string, expectedRoot: string): XmlElement {
  const root = parseXmlDocument(text);
  if (root.name !== expectedRoot) throw malformedXml();
  return root;
}

/**
 * The project's one XML reader of client documents (every S3 body, the lifecycle configuration
 * included): the root element of `text`, namespace prefixes dropped. Anything not one well-formed
 * element is MalformedXML, and so is any DOCTYPE or entity declaration (the road to entity-expansion
 * and external-entity attacks; S3 bodies never need them) and any entity XML does not predefine
 * (`&nbsp;` and the other HTML names included).
 */
export function parseXmlDocument(text: string): XmlElement {
  const body = text.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw malformedXml();
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(body)) throw malformedXml();
  // The validator accepts text after the root element (which the parser then drops).
  if (!/>\s*$/.test(body) || XMLValidator.validate(body) !== true) throw malformedXml();
  let nodes: unknown[];
  try {
    nodes = parser.parse(body) as unknown[];
  } catch {
    throw malformedXml();
  }
  const roots = nodes
    .map(toElement)
    .filter((node): node is XmlElement => node !== undefined && node.name !== '');
  if (roots.length !== 1) throw malformedXml();
  return roots[0];
}

/** Converts fast-xml-parser's ordered form; text nodes become '' named pseudo-elements, folded into `text`. */
function toElement(node: unknown): XmlElement | undefined {
  const entry = Object.entries(node as Record<string, unknown>).find(([key]) => key !== ':@');
  if (!entry) return undefined;
  const [name, content] = entry;
  if (name === '#text') return { name: '', children: [], text: decodeEntities(String(content)) };
  if (name === '__cdata') {
    const inner = (content as { '#text'?: unknown }[]).map((c) => String(c['#text'] ?? '')).join('');
    return { name: '', children: [], text: inner };
  }
  const parts = (content as unknown[]).map(toElement).filter((c): c is XmlElement => c !== undefined);
  return {
    name,
    children: parts.filter((c) => c.name !== ''),
    text: parts
      .filter((c) => c.name === '')
      .map((c) => c.text)
      .join(''),
  };
}

/** The five predefined entities and character references; anything else is not XML. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:([a-zA-Z]+)|#([0-9]+)|#x([0-9a-fA-F]+));|&/g,
    (match, named?: string, dec?: string, hex?: string) => {
      if (named !== undefined) {
        const value = NAMED_ENTITIES[named];
        if (value === undefined) throw malformedXml();
        return value;
      }
      if (dec === undefined && hex === undefined) throw malformedXml(); // a bare '&'
      const code = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
      const legal =
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        (code >= 0x10000 && code <= 0x10ffff);
      if (!legal) throw malformedXml();
      return String.fromCodePoint(code);
    },
  );
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function malformedXml(): S3Error {
  return new S3Error('MalformedXML');
}

/** Children named `name`. */
export function xmlChildren(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The text of the only child `name`; undefined when absent; MalformedXML when repeated or not a leaf. */
export function xmlLeaf(element: XmlElement, name: string): string | undefined {
  const found = xmlChildren(element, name);
  if (found.length === 0) return undefined;
  if (found.length > 1 || found[0].children.length > 0) throw malformedXml();
  return found[0].text;
}

function requiredLeaf(element: XmlElement, name: string): string {
  const value = xmlLeaf(element, name);
  if (value === undefined) throw malformedXml();
  return value;
}

function xmlBoolean(value: string): boolean {
  switch (value.trim().toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      throw malformedXml();
  }
}

// ---- request bodies -------------------------------------------------------------------------

export interface CreateBucketConfiguration {
  /** Absent or empty means us-east-1, as in S3. */
  locationConstraint?: string;
}

/** CreateBucket's optional body; an empty body is an empty configuration. */
export function parseCreateBucketConfiguration(text: string): CreateBucketConfiguration {
  if (text.trim() === '') return {};
  const root = parseXmlBody(text, 'CreateBucketConfiguration');
  const location = xmlLeaf(root, 'LocationConstraint')?.trim();
  return location ? { locationConstraint: location } : {};
}

export interface DeleteObjectsRequest {
  quiet: boolean;
  objects: { key: string; versionId?: string }[];
}

export const MAX_DELETE_OBJECTS = 1000;

/** DeleteObjects: 1 to 1000 `<Object>`s each with one `<Key>` (kept verbatim, spaces included). */
export function parseDeleteObjects(text: string): DeleteObjectsRequest {
  const root = parseXmlBody(text, 'Delete');
  const objects = xmlChildren(root, 'Object').map((object) => {
    const key = requiredLeaf(object, 'Key');
    const versionId = xmlLeaf(object, 'VersionId');
    return versionId === undefined || versionId === '' ? { key } : { key, versionId };
  });
  if (objects.length === 0 || objects.length > MAX_DELETE_OBJECTS) throw malformedXml();
  const quiet = xmlLeaf(root, 'Quiet');
  return { quiet: quiet === undefined ? false : xmlBoolean(quiet), objects };
}

export interface CompletedPart {
  partNumber: number;
  /** Always quoted, whatever form the client sent. */
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

export const MAX_PART_NUMBER = 10_000;
const PART_CHECKSUMS: [string, ChecksumAlgorithm][] = [
  ['ChecksumCRC32', 'CRC32'],
  ['ChecksumCRC32C', 'CRC32C'],
  ['ChecksumCRC64NVME', 'CRC64NVME'],
  ['ChecksumSHA1', 'SHA1'],
  ['ChecksumSHA256', 'SHA256'],
];

/**
 * CompleteMultipartUpload: at least one `<Part>` with PartNumber and ETag, part numbers strictly
 * ascending (InvalidPartOrder otherwise) and in 1..10000 (InvalidArgument).
 */
export function parseCompleteMultipartUpload(text: string): CompletedPart[] {
  const root = parseXmlBody(text, 'CompleteMultipartUpload');
  const parts = xmlChildren(root, 'Part').map((part): CompletedPart => {
    const number = requiredLeaf(part, 'PartNumber').trim();
    if (!/^\d{1,9}$/.test(number)) throw malformedXml();
    const partNumber = Number(number);
    if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
        extra: { ArgumentName: 'partNumber', ArgumentValue: number },
      });
    }
    const etag = requiredLeaf(part, 'ETag').trim();
    if (etag === '') throw malformedXml();
    const checksums: CompletedPart['checksums'] = {};
    for (const [element, algorithm] of PART_CHECKSUMS) {
      const value = xmlLeaf(part, element)?.trim();
      if (value === undefined) continue;
      if (!isValidChecksumValue(algorithm, value))
        throw new S3Error('InvalidRequest', `Value for ${element} is invalid.`);
      checksums[algorithm] = value;
    }
    return { partNumber, etag: quoteEtag(etag), checksums };
  });
  if (parts.length === 0) throw malformedXml();
  for (let i = 1; i < parts.length; i++) {
    if (parts[i].partNumber <= parts[i - 1].partNumber) throw new S3Error('InvalidPartOrder');
  }
  return parts;
}

export type TagTarget = 'object' | 'bucket';
export const MAX_OBJECT_TAGS = 10;
export const MAX_BUCKET_TAGS = 50;

/** PutObjectTagging / PutBucketTagging: `<Tagging><TagSet><Tag><Key/><Value/></Tag>…`, as key → value. */
export function parseTagging(text: string, target: TagTarget): Record<string, string> {
  const root = parseXmlBody(text, 'Tagging');
  const sets = xmlChildren(root, 'TagSet');
  if (sets.length !== 1) throw malformedXml();
  const tags = xmlChildren(sets[0], 'Tag').map((tag): [string, string] => [
    requiredLeaf(tag, 'Key'),
    requiredLeaf(tag, 'Value'),
  ]);
  validateTags(tags, target);
  return Object.fromEntries(tags);
}

/**
 * The `x-amz-tagging` header of PutObject/CopyObject/CreateMultipartUpload: URL query form
 * (`a=1&b=x%20y`, `+` is a space). A repeated key is InvalidArgument, as in S3.
 */
export function parseTaggingHeader(header: string): Record<string, string> {
  const tags: [string, string][] = [];
  for (const [key, value] of new URLSearchParams(header)) {
    if (tags.some(([k]) => k === key)) {
      throw new S3Error(
        'InvalidArgument',
        "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.",
        { extra: { ArgumentName: 'x-amz-tagging', ArgumentValue: header } },
      );
    }
    tags.push([key, value]);
  }
  validateTags(tags, 'object');
  return Object.fromEntries(tags);
}

/**
 * S3's tag rules: at most 10 per object / 50 per bucket, keys of 1..128 characters and values of
 * at most 256 (Unicode characters, not bytes), unique keys, no `aws:` prefix. InvalidTag otherwise.
 */
export function validateTags(tags: [key: string, value: string][], target: TagTarget): void {
  const invalid = (message: string) => new S3Error('InvalidTag', message);
  if (target === 'object' && tags.length > MAX_OBJECT_TAGS)
    throw invalid('Object tags cannot be greater than 10');
  if (target === 'bucket' && tags.length > MAX_BUCKET_TAGS)
    throw invalid('Bucket tag count cannot be greater than 50');
  const seen = new Set<string>();
  for (const [key, value] of tags) {
    const keyLength = [...key].length;
    if (keyLength === 0) throw invalid('The TagKey you have provided is invalid');
    if (keyLength > 128) throw invalid('The TagKey you have provided is too long, max 128');
    if ([...value].length > 256) throw invalid('The TagValue you have provided is too long, max 256');
    if (key.toLowerCase().startsWith('aws:')) throw invalid('Your TagKey cannot be prefixed with aws:');
    if (seen.has(key)) throw invalid('Cannot provide multiple Tags with the same key');
    seen.add(key);
  }
}

export interface VersioningConfiguration {
  status: 'Enabled' | 'Suspended';
  mfaDelete?: 'Enabled' | 'Disabled';
}

/**
 * PutBucketVersioning. Values are case-sensitive as in S3 (MalformedXML otherwise); without
 * Status it is IllegalVersioningConfigurationException.
 */
export function parseVersioningConfiguration(text: string): VersioningConfiguration {
  const root = parseXmlBody(text, 'VersioningConfiguration');
  const status = xmlLeaf(root, 'Status')?.trim();
  const mfaDelete = xmlLeaf(root, 'MfaDelete')?.trim();
  if (status !== undefined && status !== 'Enabled' && status !== 'Suspended') throw malformedXml();
  if (mfaDelete !== undefined && mfaDelete !== 'Enabled' && mfaDelete !== 'Disabled') throw malformedXml();
  if (status === undefined) throw new S3Error('IllegalVersioningConfigurationException');
  return mfaDelete === undefined ? { status } : { status, mfaDelete };
}
