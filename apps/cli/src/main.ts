// The `parley` command: runs the command line of cli.ts with this process's arguments.
import { main } from './cli';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`parley: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
