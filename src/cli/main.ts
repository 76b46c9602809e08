/** The lr-node executable (bin/lr-node.js loads the built copy of this file, or this one through tsx). */
import { runCli } from './program.js';

await runCli(process.argv.slice(2));
