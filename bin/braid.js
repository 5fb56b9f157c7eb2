#!/usr/bin/env node
// Entry point of the `braid` CLI; the bundle is built by `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
// `braid mine` has its own small bundle (it starts in about node's own start-up time)
const mine = process.argv[2] === 'mine' ? path.join(__dirname, '..', 'dist', 'braid-mine.js') : null;
const bundle = mine && fs.existsSync(mine) ? mine : path.join(__dirname, '..', 'dist', 'braid.js');
if (!fs.existsSync(bundle)) {
  console.error('braid: the CLI is not built yet. Run `npm run build` in ' + path.join(__dirname, '..'));
  process.exit(2);
}
require(bundle)
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error('braid: ' + (err && err.stack ? err.stack : err));
      process.exitCode = 1;
    },
  );
