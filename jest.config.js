// One Jest run for every test: unit specs beside the code, integration specs in */test/ against
// real Cassandra and Kafka: a stack of the run's own (its own ports and stack dir, never `npm start`'s),
// started by the global setup and stopped by the global teardown (tools/testing). Tests run in band:
// the stack shares the machine's two cores, and disruptive specs (which stop Cassandra) must run
// alone, last.
const { readFileSync } = require('fs');
const paths = JSON.parse(readFileSync(`${__dirname}/tsconfig.base.json`, 'utf8')).compilerOptions.paths;

const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([alias, [target]]) => [`^${alias.replace(/[/.]/g, '\\$&')}$`, `<rootDir>/${target}`]),
);
const swc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swc.$schema;

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.stack/'],
  // `bloomfilter` is published as ES modules only: compiled to CommonJS like our sources
  transformIgnorePatterns: ['/node_modules/(?!bloomfilter/)'],
};

module.exports = {
  testTimeout: 120000,
  testSequencer: '<rootDir>/tools/testing/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools,deploy}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools,deploy}/**/test/**/*.int-spec.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, '\\.disruptive\\.'],
      testEnvironment: '<rootDir>/tools/testing/environment.js',
      globalSetup: '<rootDir>/tools/testing/global-setup.js',
      globalTeardown: '<rootDir>/tools/testing/global-teardown.js',
    },
    {
      // Specs that stop Cassandra (the run's own): selected only by a plain `npm test` (or
      // --selectProjects disruptive), never by a run of the integration project alone.
      ...common,
      displayName: 'disruptive',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/test/**/*.disruptive.int-spec.ts'],
      testEnvironment: '<rootDir>/tools/testing/environment.js',
      globalSetup: '<rootDir>/tools/testing/global-setup.js',
      globalTeardown: '<rootDir>/tools/testing/global-teardown.js',
    },
  ],
};
