// @ts-check
// Drops the keyspaces this run created, stops and empties this run's stack (its logs stay in its
// stack dir until the next run in that slot), gives its slot back, and arms the exit watchdog.
const fs = require('fs');
const path = require('path');
const cassandra = require('cassandra-driver');
const stack = require('../stack/index.cjs');
const { armExitWatchdog } = require('./exit-watchdog.js');
const { runState, say, warn } = require('./run-state.js');

/** @param {string} run */
async function dropKeyspacesOf(run) {
  const client = new cassandra.Client({
    contactPoints: [process.env.OSTORE_TEST_CASSANDRA_HOST ?? '127.0.0.1'],
    protocolOptions: { port: Number(process.env.OSTORE_TEST_CASSANDRA_PORT) },
    localDataCenter: 'datacenter1',
  });
  try {
    const rs = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
    for (const row of rs.rows) {
      const name = String(row.get('keyspace_name'));
      if (name.startsWith(`${run}_`)) await client.execute(`DROP KEYSPACE IF EXISTS ${name}`);
    }
  } catch (e) {
    warn(`could not drop test keyspaces: ${e instanceof Error ? e.message : e}`);
  } finally {
    await client.shutdown();
  }
}

/** @param {import('@jest/types').Config.GlobalConfig} globalConfig */
module.exports = async (globalConfig) => {
  const state = runState();
  if (state.tornDown) return;
  state.tornDown = true;
  const run = state.stack;
  const keep = process.env.OSTORE_TEST_KEEP_KEYSPACES === '1';
  const leave = process.env.OSTORE_TEST_LEAVE_STACK === '1';
  try {
    if (process.env.OSTORE_TEST_RUN && !keep && (leave || !run)) await dropKeyspacesOf(process.env.OSTORE_TEST_RUN);
    if (run && !run.stopped) {
      if (!keep) fs.rmSync(path.join(run.slot.stackDir, 'blocks'), { recursive: true, force: true });
      if (leave) say(`left this run's stack running (OSTORE_TEST_LEAVE_STACK=1) in ${run.slot.stackDir}; the next run from this checkout reuses it`);
      else await stack.stackDown({ ...run.slot.options, purge: !keep, keepLogs: true, quiet: true });
      run.stopped = true;
      run.slot.release();
    }
  } finally {
    if (!globalConfig?.watch && !globalConfig?.watchAll) armExitWatchdog(Number(process.env.OSTORE_TEST_EXIT_GRACE_MS || 15000));
  }
};
