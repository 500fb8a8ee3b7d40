import { S3Error } from './errors';
import { parseXmlBody, toXml, xmlChildren, xmlLeaf, XmlElement } from './xml';

/**
 * A bucket's CORS configuration: AWS's PutBucketCors document, its validation, the stored form
 * (the one module that writes and reads the `buckets.cors` column) and the matching of preflight
 * and actual requests against the rules.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html
 */

/** One CORSRule. */
export interface CorsRule {
  id?: string;
  allowedMethods: string[];
  allowedOrigins: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

/** The methods a CORS rule may allow (S3 refuses any other). */
export const CORS_METHODS = ['GET', 'PUT', 'HEAD', 'POST', 'DELETE'] as const;
/** Most rules in one configuration. */
export const MAX_CORS_RULES = 100;
/** Largest PutBucketCors document S3 accepts (64 KB). */
export const MAX_CORS_XML_BYTES = 64 * 1024;

const invalid = (message: string) => new S3Error('InvalidRequest', message);

/** Parses and validates a CORSConfiguration document as S3 does (MalformedXML, InvalidRequest). */
export function parseCorsXml(body: string): CorsRule[] {
  const root = parseXmlBody(body, 'CORSConfiguration');
  if (root.children.some((c) => c.name !== 'CORSRule')) throw new S3Error('MalformedXML');
  const rules = xmlChildren(root, 'CORSRule').map(parseRule);
  if (rules.length === 0) throw new S3Error('MalformedXML');
  if (rules.length > MAX_CORS_RULES) throw invalid(`The number of CORS rules should not exceed allowed limit of ${MAX_CORS_RULES} rules.`);
  return rules;
}

const RULE_CHILDREN = new Set(['ID', 'AllowedMethod', 'AllowedOrigin', 'AllowedHeader', 'ExposeHeader', 'MaxAgeSeconds']);

function parseRule(el: XmlElement): CorsRule {
  if (el.children.some((c) => !RULE_CHILDREN.has(c.name) || c.children.length > 0)) throw new S3Error('MalformedXML');
  const texts = (name: string) => xmlChildren(el, name).map((c) => c.text.trim());
  const id = xmlLeaf(el, 'ID');
  if (id !== undefined && id.length > 255) throw invalid('The ID of a CORS rule cannot be longer than 255 characters.');
  const allowedMethods = texts('AllowedMethod');
  const allowedOrigins = texts('AllowedOrigin');
  if (allowedMethods.length === 0 || allowedOrigins.length === 0) throw new S3Error('MalformedXML');
  for (const m of allowedMethods) {
    if (!(CORS_METHODS as readonly string[]).includes(m)) throw invalid(`Found unsupported HTTP method in CORS config. Unsupported method is ${m}`);
  }
  for (const o of allowedOrigins) {
    if (wildcards(o) > 1) throw invalid(`AllowedOrigin "${o}" can not have more than one wildcard.`);
  }
  const allowedHeaders = texts('AllowedHeader');
  for (const h of allowedHeaders) {
    if (wildcards(h) > 1) throw invalid(`AllowedHeader "${h}" can not have more than one wildcard.`);
  }
  const exposeHeaders = texts('ExposeHeader');
  for (const h of exposeHeaders) {
    if (h.includes('*')) throw invalid(`ExposeHeader "${h}" contains wildcard. We currently do not support wildcard for ExposeHeader.`);
  }
  const maxAge = xmlLeaf(el, 'MaxAgeSeconds');
  if (maxAge !== undefined && !/^\s*-?\d+\s*$/.test(maxAge)) throw new S3Error('MalformedXML');
  return {
    ...(id !== undefined ? { id } : {}),
    allowedMethods,
    allowedOrigins,
    allowedHeaders,
    exposeHeaders,
    ...(maxAge !== undefined ? { maxAgeSeconds: Number(maxAge) } : {}),
  };
}

function wildcards(value: string): number {
  return value.split('*').length - 1;
}

/** The GetBucketCors document. */
export function renderCorsXml(rules: CorsRule[]): string {
  return toXml('CORSConfiguration', {
    CORSRule: rules.map((r) => ({
      ID: r.id,
      AllowedHeader: r.allowedHeaders,
      AllowedMethod: r.allowedMethods,
      AllowedOrigin: r.allowedOrigins,
      ExposeHeader: r.exposeHeaders,
      MaxAgeSeconds: r.maxAgeSeconds,
    })),
  });
}

/** The stored form (JSON, version 1) of validated rules. */
export function encodeStoredCors(rules: CorsRule[]): string {
  return JSON.stringify({ v: 1, rules });
}

const decoded = new Map<string, CorsRule[]>();

/** Reads the stored form; parsed once per distinct value (the bucket row is read on every request). */
export function decodeStoredCors(stored: string): CorsRule[] {
  const hit = decoded.get(stored);
  if (hit) return hit;
  const doc = JSON.parse(stored) as { v?: number; rules?: CorsRule[] };
  if (doc.v !== 1 || !Array.isArray(doc.rules)) throw new Error('unknown stored CORS configuration format');
  if (decoded.size > 1000) decoded.clear();
  decoded.set(stored, doc.rules);
  return doc.rules;
}

/** `*` matches any run of characters; everything else literally (case-insensitive for header names). */
function wildcardMatch(pattern: string, value: string, ignoreCase: boolean): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  const star = p.indexOf('*');
  if (star < 0) return p === v;
  const head = p.slice(0, star);
  const tail = p.slice(star + 1);
  return v.length >= head.length + tail.length && v.startsWith(head) && v.endsWith(tail);
}

/** A request to match: its Origin, method (the requested one for a preflight) and requested headers. */
export interface CorsRequest {
  origin: string;
  method: string;
  /** Access-Control-Request-Headers of a preflight, lower-cased; empty for an actual request. */
  requestHeaders: string[];
}

/** The first rule that allows the origin, the method and every requested header (S3 picks the first). */
export function matchCorsRule(rules: CorsRule[], r: CorsRequest): CorsRule | undefined {
  return rules.find(
    (rule) =>
      rule.allowedOrigins.some((o) => wildcardMatch(o, r.origin, false)) &&
      rule.allowedMethods.includes(r.method) &&
      r.requestHeaders.every((h) => rule.allowedHeaders.some((a) => wildcardMatch(a, h, true))),
  );
}

/** Splits Access-Control-Request-Headers into lower-case names. */
export function requestedHeaders(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

/** What S3 sends beside a CORS-enabled bucket's responses to a request with Origin. */
export const CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

/**
 * The Access-Control-* headers of a matched rule, as S3 answers them: the origin echoed (or `*`
 * for a rule that allows any origin, then without credentials), the rule's methods, the requested
 * headers (preflight), the exposed headers and the max age.
 */
export function corsResponseHeaders(rule: CorsRule, r: CorsRequest): Record<string, string> {
  const anyOrigin = rule.allowedOrigins.includes('*');
  const out: Record<string, string> = {
    'Access-Control-Allow-Origin': anyOrigin ? '*' : r.origin,
    'Access-Control-Allow-Methods': rule.allowedMethods.join(', '),
  };
  if (!anyOrigin) out['Access-Control-Allow-Credentials'] = 'true';
  if (r.requestHeaders.length > 0) out['Access-Control-Allow-Headers'] = r.requestHeaders.join(', ');
  if (rule.exposeHeaders.length > 0) out['Access-Control-Expose-Headers'] = rule.exposeHeaders.join(', ');
  if (rule.maxAgeSeconds !== undefined) out['Access-Control-Max-Age'] = String(rule.maxAgeSeconds);
  out['Vary'] = CORS_VARY;
  return out;
}
