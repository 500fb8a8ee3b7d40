// `npm run test:cluster`: the specs that need a multi-node Cassandra, and long whole-system drills
// not yet steady enough for every commit (apps/*/test/*.cluster-spec.ts).
// They start their own Cassandra nodes in a separate stack dir (and use the main test stack's
// Kafka), so they are never part of a plain `npm test`, whose projects do not match them.
const base = require('./jest.config.js');

const integration = base.projects.find((p) => p.displayName === 'integration');

module.exports = {
  testTimeout: 600000,
  testSequencer: base.testSequencer,
  projects: [
    {
      ...integration,
      displayName: 'cluster',
      testMatch: ['<rootDir>/apps/**/test/**/*.cluster-spec.ts'],
    },
  ],
};
