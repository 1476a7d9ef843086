// Bundles the viewer page (src/) with esbuild into static files the server serves:
//   node build.mjs --outdir DIR
// index.html, view.html, viewer.css are copied; viewer.js and list.js are bundled (three.js
// included, minified); nothing is fetched at run time.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf('--outdir');
const outdir = at > 0 ? process.argv[at + 1] : join(here, 'dist');
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [join(here, 'src/viewer.js'), join(here, 'src/list.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  target: ['es2020'],
  outdir,
  logLevel: 'warning',
  legalComments: 'eof',
});
for (const file of ['index.html', 'view.html', 'viewer.css']) {
  copyFileSync(join(here, 'src', file), join(outdir, file));
}
