import { RecentKeys } from './recent-keys';

describe('RecentKeys', () => {
  it('tells whether a key was touched before, and forgets the least recently touched first', () => {
    const recent = new RecentKeys(2);
    expect(recent.touch('a')).toBe(false);
    expect(recent.touch('b')).toBe(false);
    expect(recent.touch('a')).toBe(true); // a is now the most recent
    expect(recent.touch('c')).toBe(false); // b, the least recent, is forgotten
    expect(recent.size).toBe(2);
    expect(recent.touch('a')).toBe(true);
    expect(recent.touch('b')).toBe(false);
  });

  it('remembers nothing with no room', () => {
    const recent = new RecentKeys(0);
    expect(recent.touch('a')).toBe(false);
    expect(recent.touch('a')).toBe(false);
    expect(recent.size).toBe(0);
  });
});
