// Both themes (style.css: the light :root, and the dark one under prefers-color-scheme) keep
// the main text readable: WCAG 2 contrast of at least 4.5:1 for each text / background pair the
// pages use, computed from the CSS variables themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const css = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/style.css'), 'utf8');

/** The custom properties declared in the first `:root { ... }` found after `from`. */
function variables(from) {
  const start = css.indexOf(':root {', from);
  assert.ok(start >= 0, 'a :root block');
  const block = css.slice(start, css.indexOf('}', start));
  return Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\s*;/g)].map((m) => [m[1], m[2]]));
}

function channels(hex) {
  const digits = hex.slice(1);
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
}

function luminance(hex) {
  const [r, g, b] = channels(hex).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a, b) {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

// Text colour on background colour, as the pages pair them.
const PAIRS = [
  ['fg', 'bg'], ['fg', 'panel'], ['fg', 'field'], ['fg', 'hover'], ['fg', 'current'], ['fg', 'clock-bg'],
  ['fg', 'note-bg'], ['fg', 'alert-bg'],
  ['muted', 'bg'], ['muted', 'panel'], ['muted', 'field'],
  ['accent', 'bg'], ['accent', 'panel'], ['accent', 'field'],
  ['danger', 'bg'], ['danger', 'panel'], ['danger', 'field'], ['danger', 'clock-bg'],
  ['on-accent', 'accent'], ['on-accent', 'accent-hover'], ['on-accent', 'danger'], ['on-accent', 'danger-hover'],
];

const light = variables(0);
const darkAt = css.indexOf('@media (prefers-color-scheme: dark)');
const dark = variables(darkAt);

test('the contrast formula matches known values', () => {
  assert.equal(contrast('#000', '#fff').toFixed(1), '21.0');
  assert.equal(contrast('#777', '#fff').toFixed(2), '4.48');
});

test('a dark theme follows the system and sets every colour the light one does', () => {
  assert.ok(darkAt > 0, 'a prefers-color-scheme: dark block');
  for (const name of Object.keys(light)) assert.ok(dark[name], `--${name} in the dark theme`);
});

for (const [themeName, theme] of [['light', light], ['dark', dark]]) {
  test(`the ${themeName} theme keeps text at 4.5:1 or more`, () => {
    for (const [text, background] of PAIRS) {
      assert.ok(theme[text] && theme[background], `--${text} and --${background} are set`);
      const ratio = contrast(theme[text], theme[background]);
      assert.ok(ratio >= 4.5, `--${text} ${theme[text]} on --${background} ${theme[background]}: ${ratio.toFixed(2)}:1`);
    }
  });
}
