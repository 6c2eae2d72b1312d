#!/usr/bin/env node
import { main } from '../dist/src/cli/main.js';

// When a command has finished, the process ends even if a library left a timer or socket behind (the
// daemon's `serve` never returns from main, so it is not cut short). Streams are flushed first so piped
// output is never truncated.
function exit(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv).then(exit, (error) => {
  console.error(error);
  exit(1);
});
