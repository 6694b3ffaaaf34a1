// The player's name as the server takes it (protocol.md, hello: 1..32 characters, no control
// characters). A name the server refuses would leave the player "Anonymous" without a word.

/** The most characters (Unicode code points, as the server counts them) a name may have. */
export const MAX_NAME_CHARACTERS = 32;

/**
 * `text` made acceptable: control characters (C0, DEL, C1) dropped, spaces trimmed, cut to 32
 * code points (never inside a surrogate pair, as a cut by UTF-16 units could). Empty if nothing
 * is left.
 */
export function cleanName(text: string): string {
  const kept = Array.from(text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim());
  return kept.slice(0, MAX_NAME_CHARACTERS).join('').trim();
}
