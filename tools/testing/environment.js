// @ts-check
// Test environment of the integration specs. When a spec file is done (after all its hooks, even
// failed ones), it stops any app process the file left running (and says so), then drops the
// keyspaces the file created: a long run never piles up hundreds of tables in the test Cassandra,
// each of which costs heap, and a failing spec never leaves a process that keeps Jest alive.
const { TestEnvironment } = require('jest-environment-node');
const cassandra = require('cassandra-driver');
const { warn } = require('./run-state.js');

/**
 * What tools/testing/app-process.ts registers for each process it starts.
 * @typedef {{ name: string, pid: number | undefined, running: () => boolean, stop: () => Promise<void> }} RegisteredProcess
 */

class OStoreIntegrationEnvironment extends TestEnvironment {
  /**
   * @param {import('@jest/environment').JestEnvironmentConfig} config
   * @param {import('@jest/environment').EnvironmentContext} context
   */
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  /** @override */
  async teardown() {
    const g = /** @type {{ __ostoreProcesses?: RegisteredProcess[], __ostoreKeyspaces?: string[] }} */ (this.global);
    await this.stopLeftovers(g.__ostoreProcesses ?? []);
    await this.dropKeyspaces(g.__ostoreKeyspaces ?? []);
    await super.teardown();
  }

  /** @param {RegisteredProcess[]} processes */
  async stopLeftovers(processes) {
    const left = processes.filter((p) => p.running());
    if (left.length === 0) return;
    warn(`${this.testPath}: ${left.map((p) => `${p.name} (pid ${p.pid})`).join(', ')} still running after the spec file; stopping`);
    await Promise.all(left.map((p) => p.stop().catch((e) => warn(`could not stop ${p.name}: ${e instanceof Error ? e.message : e}`))));
  }

  /** @param {string[]} keyspaces */
  async dropKeyspaces(keyspaces) {
    if (keyspaces.length === 0 || process.env.OSTORE_TEST_KEEP_KEYSPACES === '1' || !process.env.OSTORE_TEST_CASSANDRA_HOST) return;
    const client = new cassandra.Client({
      contactPoints: [process.env.OSTORE_TEST_CASSANDRA_HOST],
      protocolOptions: { port: Number(process.env.OSTORE_TEST_CASSANDRA_PORT) },
      localDataCenter: 'datacenter1',
    });
    try {
      for (const ks of keyspaces) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`).catch(() => undefined);
    } catch {
      // the global teardown drops whatever is left
    } finally {
      await client.shutdown().catch(() => undefined);
    }
  }
}

module.exports = OStoreIntegrationEnvironment;
