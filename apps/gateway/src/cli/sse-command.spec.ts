import { parseAdminArgs } from './admin-cli';
import { parseSseArgs } from './sse-command';

describe(parseSseArgs.name, () => {
  it('turns sse rewrap <bucket> into the admin call and prints its answer in a line', () => {
    const sut = parseAdminArgs(['sse', 'rewrap', 'my bucket']);
    expect(sut).toMatchObject({ method: 'POST', path: '/admin/buckets/my%20bucket/sse/rewrap' });
    const render = (sut as { render: (a: unknown) => string }).render;
    expect(render({ bucket: 'b', versions: 5, rewrapped: 3, currentKeyId: 'k2' })).toBe('b: 3 of 5 versions re-wrapped with master key k2');
  });

  it('refuses a missing bucket, extra arguments and unknown verbs; leaves other commands alone', () => {
    expect(() => parseSseArgs(['sse', 'rewrap'])).toThrow('sse rewrap needs <bucket>');
    expect(() => parseSseArgs(['sse', 'rewrap', 'b', 'c'])).toThrow('unexpected argument "c"');
    expect(() => parseSseArgs(['sse', 'rotate', 'b'])).toThrow('unknown command "sse rotate"');
    expect(parseSseArgs(['bucket', 'list'])).toBeUndefined();
  });
});
