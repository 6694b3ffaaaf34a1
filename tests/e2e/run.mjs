// CTest entry for one end-to-end suite: skips (exit 77) only when Chromium is missing, installs
// playwright-core with `npm ci` when node_modules is absent, builds the client when needed, then
// runs the suite with node:test.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SKIP = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const suite = process.argv[2];
if (!suite) {
  console.error('usage: node run.mjs <suite.test.mjs>');
  process.exit(2);
}
if (!existsSync(chromium)) {
  console.log(`SKIP: Chromium not found at ${chromium} (apt-get install chromium fonts-noto-cjk)`);
  process.exit(SKIP);
}
function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed in ${cwd}`);
    process.exit(result.status ?? 1);
  }
}
if (!existsSync(path.join(here, 'node_modules/playwright-core'))) {
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], here);
}
if (!process.env.ARBITER_WEB_ROOT) run(path.join(repoRoot, 'client/web/build.sh'), [], repoRoot);
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', path.join(here, suite)], {
  cwd: here,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
