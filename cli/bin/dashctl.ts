#!/usr/bin/env node
/** dashctl: the command-line client. Placeholder until issue 7 builds the commands. */
console.error('dashctl: not implemented yet (see issue 7); use curl against the HTTP API meanwhile');
process.exit(1);
