// The pure parts of playing in the browser: which move a gesture means (castling by putting the
// king on its rook), which sound an event makes, looking back through the moves, the keyboard
// cursor's steps, what a premove becomes at the turn, and the words of the title and announcements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { castlingByRook, destinations, movesForDrop, piecesOf } = await loadSource('dropmoves');
const { VARIANTS } = await loadSource('variants');
const sounds = await loadSource('sounds');
const { browseStep, MoveHistory } = await loadSource('browse');
const { stepSquare, captureAnnouncement } = await loadSource('keyboard');
const { premoveOutcome, anySquare } = await loadSource('premove');
const { attentionTitle, moveAnnouncement } = await loadSource('attention');

const CASTLING = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';

test('a chess board FEN reads into pieces by square', () => {
  const pieces = piecesOf('r3k2r/8/8/8/8/8/8/R3K2R');
  assert.equal(pieces.get('e1'), 'K');
  assert.equal(pieces.get('h8'), 'r');
  assert.equal(pieces.get('e4'), undefined);
  assert.equal(pieces.size, 6);
});

test('the king put on its own rook means the castling move that way, when it is legal', () => {
  const chess = VARIANTS.chess;
  const map = castlingByRook(chess, CASTLING, ['e1g1', 'e1c1', 'e1f1', 'a1a2']);
  assert.deepEqual([...map.entries()].sort(), [['e1a1', 'e1c1'], ['e1h1', 'e1g1']]);
  assert.deepEqual(movesForDrop(chess, CASTLING, ['e1g1', 'e1c1'], 'e1', 'h1'), ['e1g1']);
  assert.deepEqual(movesForDrop(chess, CASTLING, ['e1g1', 'e1c1'], 'e1', 'g1'), ['e1g1']);
  // Not in the legal list (castling through check, rights lost): the gesture means nothing.
  assert.deepEqual(movesForDrop(chess, CASTLING, ['e1c1'], 'e1', 'h1'), []);
  // Black castles toward its own rook, never onto a white one.
  const black = 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1';
  assert.deepEqual(movesForDrop(chess, black, ['e8g8'], 'e8', 'h8'), ['e8g8']);
  // A two-square king move whose path ends on another piece is no castling gesture onto it.
  assert.deepEqual([...castlingByRook(chess, 'r3k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1', ['e1g1']).keys()], []);
  // Xiangqi and draughts have no castling.
  assert.equal(castlingByRook(VARIANTS.xiangqi, VARIANTS.xiangqi.example, ['e1e2']).size, 0);
});

test('destinations hold the legal moves and the castling rooks', () => {
  const dests = destinations(VARIANTS.chess, CASTLING, ['e1g1', 'e1c1', 'e1d1', 'a1a2']);
  assert.deepEqual(dests.get('e1').sort(), ['a1', 'c1', 'd1', 'g1', 'h1']);
  assert.deepEqual(dests.get('a1'), ['a2']);
});

test('a drop means every legal move between its two squares (promotions, draughts paths)', () => {
  const promo = ['e7e8q', 'e7e8r', 'e7e8b', 'e7e8n', 'e7d8q'];
  assert.deepEqual(movesForDrop(VARIANTS.chess, '8/4P3/8/8/8/8/8/4K2k w - - 0 1', promo, 'e7', 'e8'), promo.slice(0, 4));
  assert.deepEqual(movesForDrop(VARIANTS.draughts, 'W:W22:B18', ['22x15'], 'd2', 'f8'), []);
  const [from, to] = VARIANTS.draughts.squares('22x15');
  assert.deepEqual(movesForDrop(VARIANTS.draughts, 'W:W22:B18', ['22x15'], from, to), ['22x15']);
});

test('a move sounds as a check, a capture (fewer pieces after) or a plain move', () => {
  assert.equal(sounds.pieceCount('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'), 32);
  assert.equal(sounds.moveSound('4k3/8/8/3p4/4P3/8/8/4K3', '4k3/8/8/3P4/8/8/8/4K3', false), 'capture');
  assert.equal(sounds.moveSound('4k3/8/8/8/4P3/8/8/4K3', '4k3/8/8/4P3/8/8/8/4K3', false), 'move');
  assert.equal(sounds.moveSound('4k3/8/8/3p4/4P3/8/8/4K3', '4k3/8/8/3P4/8/8/8/4K3', true), 'check');
});

test('the game start and end sound once, on the change of status only', () => {
  assert.equal(sounds.statusSound('waiting', 'playing'), 'start');
  assert.equal(sounds.statusSound('playing', 'ended'), 'end');
  assert.equal(sounds.statusSound('playing', 'aborted'), 'end');
  assert.equal(sounds.statusSound('playing', 'playing'), null);
  assert.equal(sounds.statusSound('ended', 'ended'), null);
});

test('low time: a fifth of the start, at most 20 s, warned once as the clock crosses it', () => {
  assert.equal(sounds.lowTimeThreshold(300000), 20000);
  assert.equal(sounds.lowTimeThreshold(30000), 6000);
  assert.equal(sounds.crossedLowTime(20100, 19950, 20000), true);
  assert.equal(sounds.crossedLowTime(19950, 19850, 20000), false, 'already below: no second warning');
  assert.equal(sounds.crossedLowTime(25000, 24900, 20000), false);
});

test('looking back: arrows, Up/Down, Home/End stay inside the game', () => {
  assert.equal(browseStep('ArrowLeft', 5, 5), 4);
  assert.equal(browseStep('ArrowUp', 5, 5), 4);
  assert.equal(browseStep('ArrowRight', 5, 5), 5);
  assert.equal(browseStep('ArrowDown', 2, 5), 3);
  assert.equal(browseStep('ArrowLeft', 0, 5), 0);
  assert.equal(browseStep('Home', 3, 5), 0);
  assert.equal(browseStep('End', 3, 5), 5);
  assert.equal(browseStep('a', 3, 5), null);
});

test('the history shows a past ply until the last is reached; new plies do not move it', () => {
  const history = new MoveHistory();
  history.learn(0, { position: 'p0', check: false });
  history.learn(1, { position: 'p1', check: false });
  history.learn(2, { position: 'p2', check: true });
  assert.equal(history.current(2), 2);
  history.show(1, 2);
  assert.equal(history.current(2), 1);
  history.learn(3, { position: 'p3', check: false }); // the opponent moves meanwhile
  assert.equal(history.current(3), 1, 'still looking back');
  history.show(3, 3);
  assert.equal(history.shown, null, 'back at the game, which goes on from its last ply');
  assert.equal(history.current(4), 4);
  history.show(2, 3);
  history.truncate(1); // a takeback past the ply looked at
  assert.equal(history.shown, null);
  assert.equal(history.at(2), undefined);
  assert.equal(history.at(1).position, 'p1');
});

test('the keyboard cursor steps as the board is seen and stops at the edges', () => {
  assert.deepEqual(stepSquare('ArrowUp', [4, 1], 8, 8, 'white'), [4, 2]);
  assert.deepEqual(stepSquare('ArrowUp', [4, 1], 8, 8, 'black'), [4, 0]);
  assert.deepEqual(stepSquare('ArrowLeft', [0, 0], 8, 8, 'white'), [0, 0]);
  assert.deepEqual(stepSquare('ArrowLeft', [0, 0], 8, 8, 'black'), [1, 0]);
  assert.deepEqual(stepSquare('ArrowUp', [8, 9], 9, 10, 'white'), [8, 9]);
  assert.equal(stepSquare('Enter', [0, 0], 8, 8, 'white'), null);
});

test('a capture entered by keyboard says where the piece stands, what it took and where it may go on', () => {
  assert.equal(captureAnnouncement('22', { next: ['11'], taken: ['17'] }), 'On 22, taking 17. Next landing: 11');
  assert.equal(captureAnnouncement('11', { next: ['2', '4'], taken: ['17', '15'] }), 'On 11, taking 17, 15. Next landings: 2 or 4');
  assert.equal(captureAnnouncement('9', { next: ['2', '4', '18'], taken: [] }), 'On 9. Next landings: 2, 4 or 18');
});

test('a premove is sent when it means one legal move, asked when several, dropped when none', () => {
  assert.deepEqual(premoveOutcome(['g1f3']), { kind: 'send', move: 'g1f3' });
  assert.deepEqual(premoveOutcome(['e7e8q', 'e7e8n']), { kind: 'ask', moves: ['e7e8q', 'e7e8n'] });
  assert.deepEqual(premoveOutcome([]), { kind: 'drop' });
  const squares = anySquare(9, 10)(null, 'e1');
  assert.equal(squares.length, 89);
  assert.ok(!squares.includes('e1') && squares.includes('i:'));
});

test('the hidden tab says whose turn and the move; every move is announced', () => {
  assert.equal(attentionTitle('Arbiter', 'Nf3'), 'Your turn · Nf3 · Arbiter');
  assert.equal(attentionTitle('Arbiter', null), 'Your turn · Arbiter');
  assert.equal(moveAnnouncement('black', 'Qh4#'), 'Black played Qh4#');
});
