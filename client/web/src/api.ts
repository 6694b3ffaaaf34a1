// The server's HTTP API (protocol.md, Accounts; the profile, games, history and leaderboard
// reads): same-origin JSON requests that carry the session cookie. Every answer becomes a value,
// never an exception: `{ok, status, body}` or `{ok: false, message}` with the server's reason.

export type ApiAnswer<T> = { ok: true; status: number; body: T } | { ok: false; status: number; message: string };

/** The reason a refusal gives (`{"error", "message"}`), else one from the status. */
function reasonOf(status: number, body: any): string {
  if (body && typeof body.message === 'string' && body.message) return body.message;
  if (body && typeof body.error === 'string' && body.error) return body.error;
  if (status === 429) return 'too many attempts: wait a moment and try again';
  return status ? `the server answered ${status}` : 'the server could not be reached';
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, message: reasonOf(0, null) };
  }
  let parsed: any = null;
  if (response.status !== 204) {
    try {
      parsed = await response.json();
    } catch {
      parsed = null;
    }
  }
  if (!response.ok) return { ok: false, status: response.status, message: reasonOf(response.status, parsed) };
  return { ok: true, status: response.status, body: parsed as T };
}

/** A path segment for a username (they need no escaping, but nothing is spliced in raw). */
export function userPath(name: string, rest = ''): string {
  return `/api/users/${encodeURIComponent(name)}${rest}`;
}
