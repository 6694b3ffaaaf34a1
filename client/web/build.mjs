// Bundles the client into dist/: app.js (esbuild, from src/main.ts), app.css (chessgroundx's
// board CSS, its chess piece set renamed to chessgroundx roles, and ours), index.html,
// favicon.ico and the sounds (sounds/*.wav, synthesized by sounds.mjs).
// Skips all work when dist/ is newer than every input, so `make run` stays quick.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { synthesizeSounds } from './sounds.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = path.join(here, 'src');
const dist = path.join(here, 'dist');
const cgAssets = path.join(here, 'node_modules/chessgroundx/assets');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

const soundFiles = Object.keys(synthesizeSounds()).map((name) => `sounds/${name}.wav`);
const outputs = ['app.js', 'app.css', 'index.html', 'favicon.ico', ...soundFiles].map((f) => path.join(dist, f));
const inputsTime = Math.max(
  newest(src),
  statSync(path.join(here, 'package-lock.json')).mtimeMs,
  statSync(fileURLToPath(import.meta.url)).mtimeMs,
  statSync(path.join(here, 'sounds.mjs')).mtimeMs,
);
const force = process.argv.includes('--force');
if (!force && outputs.every((f) => existsSync(f) && statSync(f).mtimeMs >= inputsTime)) {
  console.log('client/web/dist is up to date');
  process.exit(0);
}

mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [path.join(src, 'main.ts')],
  bundle: true,
  format: 'esm',
  target: ['es2020'],
  minify: true,
  sourcemap: true,
  outfile: path.join(dist, 'app.js'),
  logLevel: 'warning',
});

// chessgroundx names roles "p-piece", "n-piece", ...; its bundled cburnett set uses lichess'
// "pawn", "knight", ... classes. Rename them and scope them to chess boards.
const roles = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
const chessPieces = readFileSync(path.join(cgAssets, 'chessground.cburnett.css'), 'utf8').replace(
  /\.cg-wrap piece\.(pawn|knight|bishop|rook|queen|king)\./g,
  (_, role) => `.cg-wrap.chess piece.${roles[role]}-piece.`,
);
const css = [
  readFileSync(path.join(cgAssets, 'chessground.base.css'), 'utf8'),
  readFileSync(path.join(cgAssets, 'chessground.brown.css'), 'utf8'),
  chessPieces,
  readFileSync(path.join(src, 'style.css'), 'utf8'),
].join('\n');
writeFileSync(path.join(dist, 'app.css'), css);
copyFileSync(path.join(src, 'index.html'), path.join(dist, 'index.html'));
mkdirSync(path.join(dist, 'sounds'), { recursive: true });
for (const [name, bytes] of Object.entries(synthesizeSounds())) writeFileSync(path.join(dist, 'sounds', `${name}.wav`), bytes);
// Browsers ask for /favicon.ico on every page; without it each page load logs a 404.
copyFileSync(path.join(src, 'favicon.ico'), path.join(dist, 'favicon.ico'));
console.log('client/web/dist built');
