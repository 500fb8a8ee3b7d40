import { parseTagging, S3Error } from '@ostore/s3/protocol';
import { LifecycleConfigurationError, MALFORMED_XML_MESSAGE } from './errors';
import { parseLifecycleXml } from './parse-lifecycle';
import { parseXmlRoot } from './xml-tree';

/** A lifecycle body whose rule prefix is `prefix`, written as raw XML. */
const lifecycle = (prefix: string, prolog = '') =>
  `${prolog}<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix>${prefix}</Prefix></Filter>` +
  '<Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>';

/** A PutObjectTagging body with the same raw text as a tag value. */
const tagging = (value: string, prolog = '') =>
  `${prolog}<Tagging><TagSet><Tag><Key>k</Key><Value>${value}</Value></Tag></TagSet></Tagging>`;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('the body was accepted');
}

describe(parseXmlRoot.name, () => {
  // three columns in every row: a callback with more parameters than columns gets `done`
  it.each<[string, string, string]>([
    ['an HTML entity (&nbsp;)', 'logs&nbsp;/', ''],
    ['another HTML entity (&eacute;)', 'caf&eacute;/', ''],
    ['an HTML entity with a code point name (&copy;)', '&copy;/', ''],
    ['an undeclared entity', '&e;', ''],
    ['an entity declared in a DOCTYPE', '&e;', '<!DOCTYPE x [<!ENTITY e "logs/">]>'],
    ['an external entity', '&e;', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'],
    ['a bare DOCTYPE', 'logs/', '<!DOCTYPE LifecycleConfiguration>'],
    ['a bare ampersand', 'a & b', ''],
    ['a reference to an illegal character', '&#0;', ''],
  ])('refuses %s as MalformedXML, as every other S3 body is', (_case, text, prolog) => {
    const refused = thrown(() => parseLifecycleXml(lifecycle(text, prolog)));
    expect(refused).toBeInstanceOf(LifecycleConfigurationError);
    const error = refused as LifecycleConfigurationError;
    expect(error.code).toBe('MalformedXML');
    expect(error.message).toBe(MALFORMED_XML_MESSAGE);
    // What the gateway answers for it, and what it answers for the same text in another body:
    const answered = S3Error.fromCode(error.code, error.message);
    const other = thrown(() => parseTagging(tagging(text, prolog), 'object')) as S3Error;
    expect(other).toBeInstanceOf(S3Error);
    expect([answered.code, answered.httpStatus]).toEqual([other.code, other.httpStatus]);
  });

  it('decodes the five XML entities and character references, as other bodies do', () => {
    const text = 'a&amp;b&lt;c&gt;&quot;&apos;&#x41;&#66;';
    expect(parseLifecycleXml(lifecycle(text)).rules[0].filter.prefix).toBe(`a&b<c>"'AB`);
    expect(parseTagging(tagging(text), 'object')).toEqual({ k: `a&b<c>"'AB` });
  });

  it('drops namespace prefixes and keeps the text of leaves untrimmed', () => {
    const root = parseXmlRoot('<s3:A xmlns:s3="urn:x"><s3:B> b </s3:B></s3:A>');
    expect(root).toEqual({ name: 'A', children: [{ name: 'B', children: [], text: ' b ' }], text: '' });
  });
});
