// Ratings, their changes and players read on screen as the contract says: "?" while
// provisional, "+12" / "−12", guests marked, engines and guests without a profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { formatRating, formatDiff, formatRange, hasProfile, playerText, ratingChanges, shownRating } = await loadSource('ratings');

test('a rating is whole points, with "?" while provisional; none is empty', () => {
  assert.equal(formatRating({ rating: 1512, provisional: false }), '1512');
  assert.equal(formatRating({ rating: 1512, provisional: true }), '1512?');
  assert.equal(formatRating({ rating: 1499.6, provisional: false }), '1500');
  assert.equal(formatRating(null), '');
  assert.equal(formatRating(undefined), '');
});

test('a change has its sign: plus, a true minus sign, and ±0', () => {
  assert.equal(formatDiff(12), '+12');
  assert.equal(formatDiff(-12), '\u221212');
  assert.equal(formatDiff(0), '\u00b10');
  assert.equal(formatDiff(-0.4), '\u00b10');
});

test('players: guests marked, ratings beside names, engines and guests have no profile', () => {
  assert.equal(playerText({ name: 'Ann', guest: true, rating: null }), 'Ann (guest)');
  assert.equal(playerText({ name: 'Bo', guest: false, rating: { rating: 1512, provisional: true } }), 'Bo 1512?');
  assert.equal(playerText({ name: 'Bo', guest: false, rating: null }), 'Bo');
  assert.equal(playerText(null), '—');
  assert.equal(hasProfile({ name: 'Bo', guest: false }), true);
  assert.equal(hasProfile({ name: 'Ann', guest: true }), false);
  assert.equal(hasProfile({ name: 'Arbiter builtin (level 1)', guest: false, engine: true }), false);
  assert.equal(hasProfile({ name: 'Old' }), false, 'a server that does not say is not taken for an account');
});

test('rating changes: only well-formed seats are kept; none is null', () => {
  assert.deepEqual(
    ratingChanges({ white: { before: 1500, after: 1512, diff: 12, provisional: false }, black: { before: 'x' } }),
    { white: { before: 1500, after: 1512, diff: 12, provisional: false } },
  );
  assert.equal(ratingChanges(null), null);
  assert.equal(ratingChanges({}), null);
  assert.equal(ratingChanges([1, 2]), null);
  assert.deepEqual(shownRating({ rating: 1400, provisional: true }), { rating: 1400, provisional: true });
  assert.equal(shownRating({ rating: '1400' }), null);
});

test('a seek range reads with either bound', () => {
  assert.equal(formatRange({ min: 1500, max: 1800 }), '1500\u20131800');
  assert.equal(formatRange({ min: 1500, max: null }), '1500 or more');
  assert.equal(formatRange({ min: null, max: 1800 }), 'up to 1800');
  assert.equal(formatRange(null), '');
});
