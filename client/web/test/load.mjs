// Loads a client source module (TypeScript) for a unit test: esbuild bundles it into a temporary
// ES module, which is imported. Only modules that need no DOM can be loaded this way.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');

export async function loadSource(name) {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-web-test-'));
  const outfile = path.join(dir, `${name}.mjs`);
  try {
    await build({ entryPoints: [path.join(src, `${name}.ts`)], bundle: true, format: 'esm', platform: 'neutral', outfile, logLevel: 'error' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
