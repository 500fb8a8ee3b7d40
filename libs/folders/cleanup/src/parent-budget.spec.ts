import { ParentBudget } from './parent-budget';

describe(ParentBudget.name, () => {
  it('allows a bounded number of deletions per parent per window', () => {
    const sut = new ParentBudget(2, 1000);
    expect(sut.take('p/', 0)).toBe(true);
    expect(sut.take('p/', 10)).toBe(true);
    expect(sut.take('p/', 20)).toBe(false);
    expect(sut.take('q/', 20)).toBe(true);
    expect(sut.take('p/', 1000)).toBe(true);
  });

  it('a deletion that did not happen is given back', () => {
    const sut = new ParentBudget(1, 1000);
    expect(sut.take('p/', 0)).toBe(true);
    sut.giveBack('p/');
    expect(sut.take('p/', 1)).toBe(true);
  });

  it('forgets past windows beyond its size', () => {
    const sut = new ParentBudget(1, 10, 2);
    sut.take('a', 0);
    sut.take('b', 0);
    sut.take('c', 20);
    expect(sut.take('a', 21)).toBe(true);
  });
});
