import { thrown } from './spec-support/thrown';
import { corsResponseHeaders, decodeStoredCors, encodeStoredCors, matchCorsRule, parseCorsXml, renderCorsXml, requestedHeaders } from './cors';

const doc = (rules: string) => `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${rules}</CORSConfiguration>`;
const rule = (inner: string) => `<CORSRule>${inner}</CORSRule>`;

describe('CORS configuration', () => {
  it('parses, renders and stores a configuration', () => {
    const sut = parseCorsXml(
      doc(
        rule('<ID>r1</ID><AllowedOrigin>https://a.example</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>30</MaxAgeSeconds>') +
          rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>HEAD</AllowedMethod>'),
      ),
    );
    expect(sut).toEqual([
      { id: 'r1', allowedOrigins: ['https://a.example'], allowedMethods: ['GET', 'PUT'], allowedHeaders: ['*'], exposeHeaders: ['ETag'], maxAgeSeconds: 30 },
      { allowedOrigins: ['*'], allowedMethods: ['HEAD'], allowedHeaders: [], exposeHeaders: [] },
    ]);
    expect(parseCorsXml(renderCorsXml(sut))).toEqual(sut);
    expect(decodeStoredCors(encodeStoredCors(sut))).toEqual(sut);
    expect(() => decodeStoredCors('{"v":2}')).toThrow('unknown stored CORS configuration format');
  });

  it.each([
    ['no rule', doc(''), 'MalformedXML'],
    ['no origin', doc(rule('<AllowedMethod>GET</AllowedMethod>')), 'MalformedXML'],
    ['no method', doc(rule('<AllowedOrigin>*</AllowedOrigin>')), 'MalformedXML'],
    ['an unknown element', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><Bogus/>')), 'MalformedXML'],
    ['another root', '<Cors/>', 'MalformedXML'],
    ['a bad method', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod>')), 'InvalidRequest'],
    ['two wildcards in an origin', doc(rule('<AllowedOrigin>*.*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>')), 'InvalidRequest'],
    ['two wildcards in a header', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>x-*-*</AllowedHeader>')), 'InvalidRequest'],
    ['a wildcard exposed header', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><ExposeHeader>x-*</ExposeHeader>')), 'InvalidRequest'],
    ['a non-integer max age', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>soon</MaxAgeSeconds>')), 'MalformedXML'],
    ['101 rules', doc(rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>').repeat(101)), 'InvalidRequest'],
  ])('refuses %s', (_name, body, code) => {
    expect(thrown(() => parseCorsXml(body)).code).toBe(code);
  });

  describe('matching', () => {
    const rules = parseCorsXml(
      doc(
        rule('<AllowedOrigin>https://*.example.com</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedHeader>x-amz-*</AllowedHeader><AllowedHeader>Content-Type</AllowedHeader>') +
          rule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>5</MaxAgeSeconds>'),
      ),
    );

    it.each([
      ['https://app.example.com', 'PUT', 'x-amz-date, content-type', 0],
      ['https://app.example.com', 'PUT', 'X-Amz-Meta-A', 0],
      ['https://app.example.com', 'PUT', 'authorization', undefined],
      ['https://example.com', 'PUT', '', undefined],
      ['http://app.example.com', 'PUT', '', undefined],
      ['https://anything', 'GET', '', 1],
      ['https://app.example.com', 'GET', 'x-custom', undefined],
      ['https://app.example.com', 'DELETE', '', undefined],
    ])('%s %s [%s] → rule %s', (origin, method, headers, index) => {
      const matched = matchCorsRule(rules, { origin, method, requestHeaders: requestedHeaders(headers) });
      expect(matched === undefined ? undefined : rules.indexOf(matched)).toBe(index);
    });

    it('answers the origin (or * for any origin), the methods, the requested headers and Vary', () => {
      const r = { origin: 'https://app.example.com', method: 'PUT', requestHeaders: ['x-amz-date'] };
      expect(corsResponseHeaders(rules[0], r)).toEqual({
        'Access-Control-Allow-Origin': 'https://app.example.com',
        'Access-Control-Allow-Methods': 'PUT',
        'Access-Control-Allow-Credentials': 'true',
        'Access-Control-Allow-Headers': 'x-amz-date',
        Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      });
      expect(corsResponseHeaders(rules[1], { origin: 'https://x', method: 'GET', requestHeaders: [] })).toEqual({
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'GET',
        'Access-Control-Max-Age': '5',
        Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      });
    });
  });
});
