import { stripAwsChunked } from './object-http';

describe(stripAwsChunked.name, () => {
  it.each<[string | undefined, string | undefined]>([
    [undefined, undefined],
    ['gzip', 'gzip'],
    ['deflate, gzip', 'deflate, gzip'],
    ['deflate,gzip', 'deflate,gzip'],
    ['aws-chunked', undefined],
    ['gzip, aws-chunked', 'gzip'],
    ['aws-chunked,deflate,gzip', 'deflate, gzip'],
    ['AWS-Chunked , br', 'br'],
  ])('stores Content-Encoding %p as %p', (sent, stored) => {
    expect(stripAwsChunked(sent)).toBe(stored);
  });
});
