// Runs one node test file when what it needs is here, else exits 77 (ctest: skipped) saying
// what is missing:  node run_node_test.mjs FILE [--browser|--harness|--demo|--tls|--firefox]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const [file, mode] = process.argv.slice(2);
const missing = [];
const need = (ok, what) => { if (!ok) missing.push(what); };
const env = process.env;
need(env.CONTACTSIM_VIEWER_FIXTURES && existsSync(env.CONTACTSIM_VIEWER_FIXTURES),
  'viewer-protocol-fixtures (build target)');
if (['--browser', '--harness', '--tls', '--firefox'].includes(mode)) {
  need(env.CONTACTSIM_VIEWER_HARNESS && existsSync(env.CONTACTSIM_VIEWER_HARNESS),
    'contactsim-viewer-harness (build target)');
}
if (mode === '--demo') {
  need(env.CONTACTSIM_DEMO && existsSync(env.CONTACTSIM_DEMO), 'contactsim-demo (build target)');
}
if (mode === '--browser') {
  need(env.CONTACTSIM_CHROMIUM && existsSync(env.CONTACTSIM_CHROMIUM),
    'chromium (Debian package chromium; deploy/install-deps.sh)');
  need(existsSync(join(env.CONTACTSIM_WEB_DIR ?? '', 'node_modules/playwright-core')),
    'clients/web/node_modules/playwright-core (npm ci in clients/web; deploy/install-deps.sh)');
}
if (mode === '--firefox') {
  need(env.CONTACTSIM_FIREFOX && existsSync(env.CONTACTSIM_FIREFOX),
    'firefox-esr (Debian package firefox-esr; deploy/install-deps.sh)');
  need(env.CONTACTSIM_XVFB && existsSync(env.CONTACTSIM_XVFB),
    'Xvfb (Debian package xvfb; Firefox gets WebGL only on a display; deploy/install-deps.sh)');
  need(existsSync(join(env.CONTACTSIM_WEB_DIR ?? '', 'node_modules/playwright-core')),
    'clients/web/node_modules/playwright-core (npm ci in clients/web; deploy/install-deps.sh)');
}
if (mode === '--tls') {
  need(spawnSync('openssl', ['version']).status === 0,
    'openssl (Debian package openssl; it makes the test\'s certificate)');
}
// The harness and the demo serve the bundled page (and refuse to start, or answer 503, without
// it); it is built only where npm could install the viewer's packages.
if (['--browser', '--harness', '--demo', '--tls', '--firefox'].includes(mode)) {
  need(env.CONTACTSIM_VIEWER_ASSETS && existsSync(join(env.CONTACTSIM_VIEWER_ASSETS, 'viewer.js')),
    'the bundled viewer page (build target contactsim_viewer_assets; needs the npm packages that '
    + 'deploy/install-deps.sh installs where the npm registry is reachable)');
}
if (missing.length) {
  console.error(`SKIP: missing ${missing.join('; ')}`);
  process.exit(77);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', file], { stdio: 'inherit' });
process.exit(result.status ?? 1);
