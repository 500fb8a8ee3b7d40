import { compareUtf8 } from './text-order';

describe(compareUtf8.name, () => {
  it('orders like UTF-8 bytes, unlike UTF-16', () => {
    const words = ['a-b', 'a/b', 'a', '', 'ab', '\uffff', '😀', '\ue000', 'é', 'z'];
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareUtf8)).toEqual(byBytes);
    expect(compareUtf8('a-b', 'a/b')).toBeLessThan(0);
  });
});
