/** The lr-node executable (bin/lr-node.js loads the built copy of this file, or this one through tsx). */
import { runCli } from './program.js';

// A reader that goes away (`lr-node status URL | head`) is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => { if (error.code === 'EPIPE') process.exit(0); else throw error; });

await runCli(process.argv.slice(2));
