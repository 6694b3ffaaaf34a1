// The move list in the game's own notation (SAN, WXF, PDN as the server writes it), numbered in
// pairs; the side to move in the start position decides whether the list opens with "1. …".
import { h, fill } from './dom';

/**
 * Renders `notation` into `list`. `current` is the number of plies shown on the board (its move
 * is highlighted); `onPick(ply)` makes the moves clickable (replay).
 */
export function renderMoves(
  list: HTMLElement,
  notation: string[],
  firstMovesFirst: boolean,
  current: number,
  onPick?: (ply: number) => void,
): void {
  const rows: HTMLElement[] = [];
  const offset = firstMovesFirst ? 0 : 1; // a black/second-seat start fills the first half
  let row: HTMLElement | null = null;
  for (let index = 0; index < notation.length; index++) {
    const slot = index + offset;
    if (slot % 2 === 0 || !row) {
      row = h('li', { class: 'move-row' }, h('span', { class: 'move-number' }, `${Math.floor(slot / 2) + 1}.`));
      if (slot % 2 === 1) row.append(h('span', { class: 'move empty' }, '…'));
      rows.push(row);
    }
    const ply = index + 1;
    const cell = h(
      onPick ? 'button' : 'span',
      { class: `move${ply === current ? ' current' : ''}`, 'data-ply': ply, type: onPick ? 'button' : undefined },
      notation[index],
    );
    if (onPick) cell.addEventListener('click', () => onPick(ply));
    row.append(cell);
  }
  fill(list, ...rows);
  const active = list.querySelector('.move.current');
  if (active && 'scrollIntoView' in active) (active as HTMLElement).scrollIntoView({ block: 'nearest' });
}
