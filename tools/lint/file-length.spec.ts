import { readFileSync } from 'fs';
import { shown, sourceFiles } from './source-graph';

/** Longest a source file of apps/ or libs/ may be; specs are test code and not held to it. */
const MAX_LINES = 450;

const isSpec = (path: string) => /[.-]spec\.ts$/.test(path);

function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source file length', () => {
  it(`keeps every source file of apps/ and libs/ at ${MAX_LINES} lines or fewer`, () => {
    const over = sourceFiles(['apps', 'libs'])
      .filter((f) => !isSpec(f))
      .map((f) => ({ file: shown(f), lines: lineCount(readFileSync(f, 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });

  it('counts lines, a last line without a newline included', () => {
    expect([lineCount(''), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n')]).toEqual([0, 1, 2, 2]);
  });
});
