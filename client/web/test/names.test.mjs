// A player's name is cut and cleaned as the server counts it (protocol.md, hello).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { cleanName } = await loadSource('names');

test('a name is cut to 32 code points, never inside a surrogate pair', () => {
  const chess = '\u265e'; // one UTF-16 unit
  const horse = '\u{1F40E}'; // two UTF-16 units
  assert.equal(cleanName('a'.repeat(40)), 'a'.repeat(32));
  const mixed = 'x' + horse.repeat(40);
  const cut = cleanName(mixed);
  assert.equal(Array.from(cut).length, 32);
  assert.equal(cut, 'x' + horse.repeat(31));
  assert.ok(!/[\ud800-\udbff]$/.test(cut), 'no lone high surrogate at the end');
  assert.equal(cleanName(chess.repeat(33)), chess.repeat(32));
});

test('control characters and outer spaces are dropped; nothing left is empty', () => {
  assert.equal(cleanName('  Ana\u0007 \u0085Bo\u007f  '), 'Ana Bo');
  assert.equal(cleanName('\n\t '), '');
  assert.equal(cleanName(''), '');
});
