// Tests are TypeScript run through tsx; integration suites start real servers, so timeouts are generous.
// `npx mocha FILE...` runs just those files: the whole-suite spec applies only when no file is named
// (mocha appends command-line files to a configured spec instead of replacing it).
const namedFiles = process.argv.slice(2).some((arg) => /\.test\.ts$/.test(arg));
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  ...(namedFiles ? {} : { spec: ['test/**/*.test.ts'] }),
  // The reliability suite runs on its own: npm run test:reliability (issue 14).
  ...(namedFiles ? {} : { ignore: ['test/reliability/**'] }),
  recursive: true,
  require: ['test/support/hooks.ts'],
  timeout: 60000,
  exit: true,
  reporter: './test/support/reporter.cjs',
};
