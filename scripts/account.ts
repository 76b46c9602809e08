/**
 * npm run account -- add NAME [--role R]... [--submitter TEXT] [--password-stdin] | list | passwd NAME |
 * disable NAME | enable NAME | remove NAME: the same code as `lr-node account` (src/cli/commands/account.ts).
 */
import { runCli } from '../src/cli/program.js';

await runCli(['account', ...process.argv.slice(2)]);
