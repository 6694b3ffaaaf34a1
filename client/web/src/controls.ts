// The player's buttons: resign, draw, takeback, abort, claim, rematch, and answers to the
// opponent's offers. Only what the server could accept now is shown; the server still decides,
// and any refusal comes back as an error message on screen.
import { fill, h } from './dom';
import type { GameContext } from './game';
import { seatTitle } from './variants';

function button(id: string, label: string, onClick: () => void, kind = ''): HTMLButtonElement {
  const b = h('button', { type: 'button', id, class: kind }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A button that asks "Sure?" on the first press and acts on the second (within 4 s). */
function confirmButton(id: string, label: string, onConfirm: () => void): HTMLButtonElement {
  let armed = false;
  const b = button(id, label, () => {
    if (armed) {
      onConfirm();
      return;
    }
    armed = true;
    b.textContent = `${label}? Click again`;
    b.classList.add('armed');
    setTimeout(() => {
      armed = false;
      b.textContent = label;
      b.classList.remove('armed');
    }, 4000);
  });
  return b;
}

const OFFER_NAMES = { draw: 'a draw', takeback: 'a takeback', rematch: 'a rematch' } as const;

export function renderControls(element: HTMLElement, context: GameContext): void {
  const { model, seat, act, variant } = context;
  if (!seat) {
    fill(element);
    return;
  }
  const opponent = variant.seats.find((s) => s !== seat)!;
  const parts: HTMLElement[] = [];
  const offerFrom = (who: string, kind: string) => model.offers.some((o) => o.by === who && o.kind === kind);

  // The opponent's open offers, with accept / decline.
  for (const offer of model.offers.filter((o) => o.by === opponent)) {
    parts.push(
      h(
        'div',
        { class: 'offer', 'data-kind': offer.kind },
        h('span', {}, `${seatTitle(opponent)} offers ${OFFER_NAMES[offer.kind]}.`),
        button(`accept-${offer.kind}`, 'Accept', () => act({ type: offer.kind, action: 'accept' }), 'primary'),
        button(`decline-${offer.kind}`, 'Decline', () => act({ type: offer.kind, action: 'decline' })),
      ),
    );
  }

  if (model.status === 'playing') {
    const row: HTMLElement[] = [];
    row.push(confirmButton('resign', 'Resign', () => act({ type: 'resign' })));
    if (!offerFrom(opponent, 'draw')) {
      const drawButton = button('offer-draw', offerFrom(seat, 'draw') ? 'Draw offered' : 'Offer draw', () =>
        act({ type: 'draw', action: 'offer' }),
      );
      drawButton.disabled = offerFrom(seat, 'draw');
      row.push(drawButton);
    }
    // A takeback undoes the asker's own last move: the side that has not moved yet has none.
    const ownMovePlayed = model.ply >= 2 || (model.ply === 1 && model.turn !== seat);
    if (ownMovePlayed && !offerFrom(opponent, 'takeback')) {
      const takeback = button(
        'offer-takeback',
        offerFrom(seat, 'takeback') ? 'Takeback asked' : 'Ask takeback',
        () => act({ type: 'takeback', action: 'offer' }),
      );
      takeback.disabled = offerFrom(seat, 'takeback');
      row.push(takeback);
    }
    // Until both sides have moved either may abort (protocol.md, abort); the server decides.
    if (model.ply < 2) row.push(button('abort', 'Abort', () => act({ type: 'abort' })));
    parts.push(h('div', { class: 'row' }, ...row));

    const away = model.players[opponent];
    if (away && !away.connected) {
      const opensAt = model.claimAt[opponent];
      const wait = opensAt ? Math.ceil((opensAt - Date.now()) / 1000) : 0;
      const claimWin = button('claim-win', 'Claim win', () => act({ type: 'claim', kind: 'win' }));
      const claimDraw = button('claim-draw', 'Claim draw', () => act({ type: 'claim', kind: 'draw' }));
      claimWin.disabled = claimDraw.disabled = wait > 0;
      parts.push(
        h(
          'div',
          { class: 'claim' },
          h('span', {}, wait > 0 ? `Opponent disconnected: you may claim in ${wait}s.` : 'Opponent disconnected.'),
          claimWin,
          claimDraw,
        ),
      );
    }
  } else if (model.status === 'ended' || model.status === 'aborted') {
    if (model.rematch) {
      parts.push(h('p', {}, h('a', { href: `#/game/${model.rematch}` }, 'Go to the rematch')));
    } else if (model.players[opponent] && !offerFrom(opponent, 'rematch')) {
      // Only with an opponent: a game cancelled before anyone joined has no one to ask.
      const rematch = button(
        'offer-rematch',
        offerFrom(seat, 'rematch') ? 'Rematch offered' : 'Offer rematch',
        () => act({ type: 'rematch', action: 'offer' }),
        'primary',
      );
      rematch.disabled = offerFrom(seat, 'rematch');
      parts.push(rematch);
    }
  } else if (model.status === 'waiting') {
    parts.push(button('abort', 'Cancel game', () => act({ type: 'abort' })));
  }
  fill(element, ...parts);
}
