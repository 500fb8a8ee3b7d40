// @ts-check
/**
 * What the Jest global setup hands to the global teardown (both run in Jest's main process, so
 * they share `globalThis`): this run's stack and whether it has been stopped.
 */

/**
 * @typedef {object} RunStack
 * @property {import('../stack/test-slots.cjs').TestSlot} slot
 * @property {boolean} stopped
 */

/**
 * @typedef {object} RunState
 * @property {RunStack} [stack]
 * @property {boolean} [tornDown]
 */

/** @returns {RunState} */
function runState() {
  const g = /** @type {{ __OSTORE_TEST_RUN_STATE__?: RunState }} */ (globalThis);
  return (g.__OSTORE_TEST_RUN_STATE__ ??= {});
}

/** @param {string} msg */
function say(msg) {
  process.stdout.write(`[tests] ${msg}\n`);
}

/** @param {string} msg */
function warn(msg) {
  process.stderr.write(`[tests] ${msg}\n`);
}

module.exports = { runState, say, warn };
