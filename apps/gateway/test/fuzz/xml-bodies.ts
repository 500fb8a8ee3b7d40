import { Prng } from './prng';
import { etag, integer, isoDate, key, text } from './values';

/**
 * XML bodies for every operation that takes one: documents that follow the operation's schema
 * with hostile values, then (often) broken on purpose: elements dropped, duplicated, renamed or
 * nested too deep, DOCTYPEs and entities, truncation, stray bytes.
 */

interface El {
  name: string;
  children?: El[];
  value?: (p: Prng) => string;
  repeat?: [min: number, max: number];
  optional?: boolean;
  attrs?: (p: Prng) => string;
}

const el = (name: string, rest: Omit<El, 'name'> = {}): El => ({ name, ...rest });
const opt = (name: string, rest: Omit<El, 'name'> = {}): El => ({ name, optional: true, ...rest });

const word = (words: string[]) => (p: Prng) => (p.chance(0.85) ? p.pick(words) : text(p, 12));
const STORAGE = ['STANDARD', 'GLACIER', 'STANDARD_IA', 'DEEP_ARCHIVE', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'REDUCED_REDUNDANCY'];
const tag = el('Tag', { repeat: [0, 12], children: [el('Key', { value: (p) => text(p, 140) }), el('Value', { value: (p) => text(p, 300) })] });

const lifecycleFilter = opt('Filter', {
  children: [
    opt('Prefix', { value: (p) => key(p) }),
    opt('Tag', { children: tag.children }),
    opt('ObjectSizeGreaterThan', { value: integer }),
    opt('ObjectSizeLessThan', { value: integer }),
    opt('And', { children: [opt('Prefix', { value: (p) => key(p) }), { ...tag, optional: true }, opt('ObjectSizeGreaterThan', { value: integer }), opt('ObjectSizeLessThan', { value: integer })] }),
  ],
});

const SCHEMAS: Record<string, (knownEtags: readonly string[]) => El> = {
  Delete: () =>
    el('Delete', {
      children: [opt('Quiet', { value: word(['true', 'false']) }), el('Object', { repeat: [0, 30], children: [el('Key', { value: key }), opt('VersionId', { value: (p) => text(p, 40) })] })],
    }),
  VersioningConfiguration: () => el('VersioningConfiguration', { children: [opt('Status', { value: word(['Enabled', 'Suspended']) }), opt('MfaDelete', { value: word(['Enabled', 'Disabled']) })] }),
  Tagging: () => el('Tagging', { children: [el('TagSet', { children: [tag] })] }),
  LifecycleConfiguration: () =>
    el('LifecycleConfiguration', {
      children: [
        el('Rule', {
          repeat: [0, 6],
          children: [
            opt('ID', { value: (p) => text(p, 300) }),
            el('Status', { value: word(['Enabled', 'Disabled']) }),
            lifecycleFilter,
            opt('Prefix', { value: (p) => key(p) }),
            opt('Expiration', { children: [opt('Days', { value: integer }), opt('Date', { value: isoDate }), opt('ExpiredObjectDeleteMarker', { value: word(['true', 'false']) })] }),
            opt('NoncurrentVersionExpiration', { children: [opt('NoncurrentDays', { value: integer }), opt('NewerNoncurrentVersions', { value: integer })] }),
            opt('Transition', { repeat: [0, 3], children: [opt('Days', { value: integer }), opt('Date', { value: isoDate }), opt('StorageClass', { value: word(STORAGE) })] }),
            opt('NoncurrentVersionTransition', { children: [opt('NoncurrentDays', { value: integer }), opt('StorageClass', { value: word(STORAGE) })] }),
            opt('AbortIncompleteMultipartUpload', { children: [opt('DaysAfterInitiation', { value: integer })] }),
          ],
        }),
      ],
    }),
  AccessControlPolicy: () =>
    el('AccessControlPolicy', {
      children: [
        opt('Owner', { children: [opt('ID', { value: (p) => text(p, 70) }), opt('DisplayName', { value: (p) => text(p, 30) })] }),
        el('AccessControlList', {
          children: [
            el('Grant', {
              repeat: [0, 8],
              children: [
                el('Grantee', {
                  attrs: (p) => ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="${word(['CanonicalUser', 'Group', 'AmazonCustomerByEmail'])(p)}"`,
                  children: [
                    opt('ID', { value: (p) => text(p, 70) }),
                    opt('URI', { value: word(['http://acs.amazonaws.com/groups/global/AllUsers', 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers', 'http://acs.amazonaws.com/groups/s3/LogDelivery']) }),
                    opt('EmailAddress', { value: (p) => text(p, 30) }),
                    opt('DisplayName', { value: (p) => text(p, 30) }),
                  ],
                }),
                el('Permission', { value: word(['FULL_CONTROL', 'READ', 'WRITE', 'READ_ACP', 'WRITE_ACP']) }),
              ],
            }),
          ],
        }),
      ],
    }),
  CreateBucketConfiguration: () =>
    el('CreateBucketConfiguration', {
      children: [
        opt('LocationConstraint', { value: word(['us-east-1', 'eu-west-1', 'EU', '', 'xx-fake-1']) }),
        opt('Location', { children: [opt('Type', { value: word(['AvailabilityZone', 'LocalZone']) }), opt('Name', { value: (p) => text(p, 20) })] }),
        opt('Bucket', { children: [opt('Type', { value: word(['Directory']) }), opt('DataRedundancy', { value: word(['SingleAvailabilityZone']) })] }),
      ],
    }),
  CompleteMultipartUpload: (known) =>
    el('CompleteMultipartUpload', {
      children: [
        el('Part', {
          repeat: [0, 8],
          children: [
            el('PartNumber', { value: (p) => (p.chance(0.5) ? String(p.int(1, 3)) : integer(p)) }),
            el('ETag', { value: (p) => etag(p, known) }),
            opt('ChecksumCRC32', { value: (p) => text(p, 12) }),
            opt('ChecksumSHA256', { value: (p) => text(p, 50) }),
          ],
        }),
      ],
    }),
};

/** The document roots this generator knows (one per XML-body operation family). */
export type XmlRoot = keyof typeof SCHEMAS;

function escape(p: Prng, s: string): string {
  if (p.chance(0.03)) return s; // unescaped: & and < break the document
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function render(p: Prng, e: El, depth: number): string {
  const count = e.repeat ? p.int(e.repeat[0], e.repeat[1]) : e.optional && p.chance(0.5) ? 0 : 1;
  let out = '';
  for (let i = 0; i < count; i++) {
    const name = p.chance(0.02) ? p.pick(['Unknown', e.name.toLowerCase(), `${e.name}X`, `s3:${e.name}`]) : e.name;
    const attrs = e.attrs ? e.attrs(p) : p.chance(0.02) ? ` a="${escape(p, text(p, 10))}"` : '';
    const inner = e.children ? e.children.map((c) => render(p, c, depth + 1)).join('') : escape(p, e.value ? e.value(p) : '');
    out += p.chance(0.02) ? `<${name}${attrs}/>` : `<${name}${attrs}>${inner}</${name}>`;
  }
  return out;
}

/** One XML document for `root`, valid or broken. */
export function xmlBody(p: Prng, root: XmlRoot, knownEtags: readonly string[] = []): Buffer {
  const doc = render(p, { ...SCHEMAS[root](knownEtags), optional: false, repeat: undefined }, 0);
  const ns = p.chance(0.5) ? doc.replace(/^<(\w+)/, '<$1 xmlns="http://s3.amazonaws.com/doc/2006-03-01/"') : doc;
  const prolog = p.chance(0.4) ? '<?xml version="1.0" encoding="UTF-8"?>' : '';
  const xml = p.oneOf<string>([
    [10, () => prolog + ns],
    [1, () => ns.slice(0, p.int(0, ns.length))],
    [1, () => `<!DOCTYPE r [<!ENTITY a "${'x'.repeat(50)}"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>${ns.replace(/>([^<]*)</, '>&c;<')}`],
    [1, () => `<!DOCTYPE r SYSTEM "file:///etc/passwd">${ns}`],
    [1, () => ns.replace(/>([^<]*)</, `><![CDATA[$1]]><!-- c --><?pi x?><`)],
    [1, () => `${'<a>'.repeat(p.pick([100, 5000, 20000]))}${ns}`],
    [1, () => `\ufeff${prolog}${ns}`],
    [1, () => ns.replace(/<\/(\w+)>$/, '</Other>')],
    [1, () => `${ns}${ns}`],
    [1, () => ns.replace(/>[^<]*</, `>&#${p.pick(['0', 'x0', 'xD800', '1114112', '65535', '38'])};<`)],
  ]);
  const bytes = Buffer.from(xml, 'utf8');
  if (p.chance(0.03)) return Buffer.concat([bytes.subarray(0, p.int(0, bytes.length)), p.bytes(p.int(1, 20))]);
  return bytes;
}
