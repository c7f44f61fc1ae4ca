#!/usr/bin/env node
// `npm run build -w @mutp/players [-- --out DIR]`: the browser bundle a site serves (bundle.js), minified, in dist/ by default.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildPlayersBundle } from './bundle.js';

const at = process.argv.indexOf('--out');
const out = path.resolve(at >= 0 ? process.argv[at + 1] : path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
const entry = await buildPlayersBundle(out, { minify: true });
process.stdout.write(`built ${entry}\n`);
