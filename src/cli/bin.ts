/** Entry of the CLI bundle (dist/cli/amender.js). */
import { runCli } from './main.js';
import { nodeCliIO } from './node-io.js';

const io = nodeCliIO();
process.exitCode = await io.finish(await runCli(process.argv.slice(2), io));
