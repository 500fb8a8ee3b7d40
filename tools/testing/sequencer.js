// @ts-check
const Sequencer = require('@jest/test-sequencer').default;

/** Unit specs first, then integration specs, then the disruptive ones (they stop Cassandra). */
class OrderedSequencer extends Sequencer {
  /**
   * @override
   * @param {import('@jest/test-result').Test[]} tests
   */
  sort(tests) {
    /** @param {import('@jest/test-result').Test} t */
    const rank = (t) => (t.path.includes('.disruptive.') ? 2 : t.path.endsWith('.int-spec.ts') ? 1 : 0);
    return [...tests].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  }
}
module.exports = OrderedSequencer;
