import { resolveAddressing } from './addressing';

describe(resolveAddressing.name, () => {
  const domains = ['s3.local', 'localhost'];

  it('reads path-style bucket and key, decoding once', () => {
    expect(resolveAddressing('127.0.0.1:9000', '/photos/a%20b/c%2Bd+e', domains)).toEqual({
      bucket: 'photos',
      key: 'a b/c+d+e',
      addressing: 'path',
    });
  });

  it('keeps keys with double and trailing slashes', () => {
    expect(resolveAddressing('127.0.0.1', '/b/dir//x/', domains).key).toBe('dir//x/');
  });

  it('reads the bucket from a virtual host', () => {
    expect(resolveAddressing('photos.s3.local:9000', '/cats/black.png', domains)).toEqual({
      bucket: 'photos',
      key: 'cats/black.png',
      addressing: 'virtual-host',
    });
    expect(resolveAddressing('my.bucket.localhost', '/', domains)).toEqual({ bucket: 'my.bucket', key: undefined, addressing: 'virtual-host' });
  });

  it('has no bucket for the service root', () => {
    expect(resolveAddressing('localhost:9000', '/', domains)).toEqual({ addressing: 'path' });
  });
});

describe('resolveAddressing with invalid percent-encoding', () => {
  it.each(['/b/%FF', '/b/%zz', '/b/a%', '/%E0%A4/k'])('refuses %s as InvalidURI', (path) => {
    expect(() => resolveAddressing('127.0.0.1', path, ['s3.local'])).toThrow(expect.objectContaining({ code: 'InvalidURI', httpStatus: 400 }));
  });
});
