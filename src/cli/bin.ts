/** Entry of the CLI bundle (dist/cli/amender.js). */
import { runCli } from './main.js';
import { nodeCliIO } from './node-io.js';

process.exitCode = await runCli(process.argv.slice(2), nodeCliIO());
