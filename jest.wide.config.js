// `npm run test:wide`: the wide-directory lifecycle story (tools/bench/lifecycle/*.wide-spec.ts):
// 200,000 objects in ONE directory, 90 % of them expired by a lifecycle rule through the real
// scanner and scheduler, the directory listed before and after. It takes about half an hour per
// layout on the 2-core dev machine, so it is never part of a plain `npm test`, whose projects do
// not match it. WIDE_OBJECTS (default 200000) and WIDE_LAYOUT (contiguous | interleaved | both; default
// contiguous) size it.
const base = require('./jest.config.js');

const integration = base.projects.find((p) => p.displayName === 'integration');

module.exports = {
  testTimeout: 3_600_000,
  testSequencer: base.testSequencer,
  projects: [
    {
      ...integration,
      displayName: 'wide',
      testMatch: ['<rootDir>/tools/bench/lifecycle/*.wide-spec.ts'],
    },
  ],
};
