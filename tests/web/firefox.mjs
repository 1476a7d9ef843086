// Firefox (Debian's firefox-esr) driven by playwright-core's WebDriver-BiDi driver, headless, with
// a private Xvfb display for its GL. Headless Firefox 153 on Linux without a GPU draws WebGL with
// Mesa's llvmpipe through an X display; with none it gives pages no WebGL ("WebGL creation
// failed: ... Exhausted GL driver options", with or without webgl.force-enabled or
// EGL_PLATFORM=surfaceless), so the viewer would show only its numbers.
import { spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';

// Starts `Xvfb` on the first free display (it writes the number to fd 3); resolves with
// { display: ':N', stop() }.
export function startXvfb(xvfb = process.env.CONTACTSIM_XVFB) {
  const child = spawn(xvfb, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x800x24'],
    { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.on('exit', (code) => reject(new Error(`Xvfb exited ${code} before it named a display`)));
    child.stdio[3].on('data', (data) => {
      text += data;
      if (!text.includes('\n')) return;
      resolve({
        display: `:${text.trim()}`,
        stop() {
          return new Promise((done) => {
            child.removeAllListeners('exit');
            child.on('exit', done);
            child.kill('SIGTERM');
          });
        },
      });
    });
  });
}

// Preferences that keep a test's Firefox quiet: no update checks, telemetry or remote settings
// (the machine may have no internet), no first-run pages.
const QUIET_PREFS = {
  'app.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'services.settings.server': 'http://127.0.0.1:9/',
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
};

// Launches headless firefox-esr, with `display` for its GL, through playwright-core's BiDi driver
// (experimental in 1.49.1, reached as `_bidiFirefox`; it drives a stock Firefox by executablePath).
export async function launchFirefox(display) {
  const webDir = process.env.CONTACTSIM_WEB_DIR;
  const { default: playwright } = await import(
    resolvePath(webDir, 'node_modules/playwright-core/index.mjs'));
  return playwright._bidiFirefox.launch({
    executablePath: process.env.CONTACTSIM_FIREFOX,
    headless: true,
    env: { ...process.env, DISPLAY: display },
    firefoxUserPrefs: QUIET_PREFS,
  });
}
