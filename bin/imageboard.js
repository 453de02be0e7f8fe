#!/usr/bin/env node
// The command line: `npx imageboard <command>`. TypeScript runs through tsx, as the server does.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
