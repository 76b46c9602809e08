// Tests are TypeScript run through tsx; integration suites start real servers, so timeouts are generous.
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  spec: ['test/**/*.test.ts'],
  recursive: true,
  timeout: 60000,
  exit: true,
  reporter: './test/support/reporter.cjs',
};
