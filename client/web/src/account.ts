// Signing up, in and out from the header. The session is the HttpOnly cookie the server sets
// (protocol.md, Accounts): the page never sees it, and after each sign-in or sign-out opens a new
// WebSocket so that the upgrade carries the cookie as it now stands. Who is signed in is what the
// last `welcome.user` says; until a welcome says (or from a server that does not), the name the
// sign-in answered.
import { api } from './api';
import { fill, h } from './dom';
import type { Connection } from './net';
import { userLink } from './players';

type Listener = (username: string | null) => void;

/** Who this page is signed in as, and who wants to know when that changes. */
export class AccountState {
  username: string | null = null;
  private listeners = new Set<Listener>();

  set(username: string | null): void {
    if (username === this.username) return;
    this.username = username;
    for (const listener of this.listeners) listener(username);
  }

  /** Calls `listener` on every change; returns the remover. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

type Mode = 'in' | 'up';

/**
 * The header's account area: the guest's name field with Sign in / Sign up, or the signed-in
 * name (a link to the profile) with Sign out; and the small form both use. `guestName` is the
 * guest's name field; `onSignedOut(username)` lets the page pick a guest name the server takes.
 */
export function accountArea(
  conn: Connection,
  account: AccountState,
  guestName: HTMLElement,
  onSignedOut: (username: string) => void,
): HTMLElement {
  const signInButton = h('button', { type: 'button', id: 'sign-in' }, 'Sign in');
  const signUpButton = h('button', { type: 'button', id: 'sign-up' }, 'Sign up');
  const signOutButton = h('button', { type: 'button', id: 'sign-out' }, 'Sign out');
  const who = h('span', { class: 'account-name' });
  const status = h('p', { class: 'account-status', id: 'account-status', role: 'alert' });

  const title = h('h2', {});
  const username = h('input', {
    id: 'account-username',
    name: 'username',
    autocomplete: 'username',
    required: true,
    maxlength: '20',
    title: '3 to 20 letters, digits, _ or -',
    spellcheck: 'false',
  });
  const password = h('input', { id: 'account-password', name: 'password', type: 'password', required: true, maxlength: '128' });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'account-submit' });
  const cancel = h('button', { type: 'button', id: 'account-cancel' }, 'Cancel');
  // Not a '.message': the page's own messages are the views' (the header's form is on every page).
  const error = h('p', { class: 'form-error', id: 'account-error', role: 'alert' });
  const form = h(
    'form',
    { class: 'account-form', id: 'account-form', hidden: true },
    title,
    h('label', {}, 'Username ', username),
    h('label', {}, 'Password ', password),
    h('div', { class: 'row' }, submit, cancel),
    error,
  );
  let mode: Mode = 'in';

  // The rules are the server's (protocol.md, Accounts): the form checks nothing itself but that the
  // fields are filled, so that every refusal is the server's reason, shown as it gives it.
  function openForm(next: Mode): void {
    mode = next;
    title.textContent = next === 'in' ? 'Sign in' : 'Sign up';
    submit.textContent = next === 'in' ? 'Sign in' : 'Create account';
    password.setAttribute('autocomplete', next === 'in' ? 'current-password' : 'new-password');
    error.textContent = '';
    form.hidden = false;
    username.focus();
  }

  function closeForm(): void {
    form.hidden = true;
    password.value = '';
    error.textContent = '';
  }

  async function signIn(name: string, secret: string): Promise<string | null> {
    const answer = await api<{ username: string }>('POST', '/api/session', { username: name, password: secret });
    if (!answer.ok) return answer.message;
    account.set(typeof answer.body?.username === 'string' ? answer.body.username : name);
    conn.reconnect();
    return null;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = username.value.trim();
    const secret = password.value;
    error.textContent = '';
    submit.disabled = true;
    try {
      if (mode === 'up') {
        const created = await api('POST', '/api/account', { username: name, password: secret });
        if (!created.ok) {
          error.textContent = created.message;
          return;
        }
      }
      const refused = await signIn(name, secret);
      if (refused) {
        error.textContent = mode === 'up' ? `Account created, but signing in failed: ${refused}` : refused;
        return;
      }
      closeForm();
    } finally {
      submit.disabled = false;
    }
  });
  cancel.addEventListener('click', closeForm);
  signInButton.addEventListener('click', () => openForm('in'));
  signUpButton.addEventListener('click', () => openForm('up'));
  signOutButton.addEventListener('click', async () => {
    status.textContent = '';
    const answer = await api('DELETE', '/api/session');
    // 401: the session had already ended (elsewhere, or a password change): signed out all the same.
    if (!answer.ok && answer.status !== 401) {
      status.textContent = answer.message;
      return;
    }
    const was = account.username;
    account.set(null);
    if (was) onSignedOut(was);
    conn.reconnect();
  });

  const area = h('div', { class: 'account' });
  function render(): void {
    const name = account.username;
    if (name) {
      fill(who, 'Signed in as ', userLink(name, { id: 'account-name' }));
      fill(area, who, signOutButton, status, form);
      closeForm();
    } else {
      fill(area, guestName, signInButton, signUpButton, status, form);
    }
  }
  account.listen(render);
  conn.on((message) => {
    if (message.type === 'welcome' && 'user' in message) account.set(conn.user?.username ?? null);
    // A guest's name that an account holds is refused (protocol.md, hello): say why.
    if (message.type === 'error' && message.code === 'name_taken') {
      status.textContent = message.message || 'That name belongs to a registered player: sign in, or choose another.';
    }
    if (message.type === 'welcome' && !account.username) status.textContent = '';
  });
  render();
  return area;
}
