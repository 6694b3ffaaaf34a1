// Sounds of the game: a move, a capture, a check, the start and the end of a game, and the
// player's clock running low. The files (dist/sounds/*.wav, synthesized by sounds.mjs at build
// time) are fetched and decoded once per page, and played through Web Audio. A mute toggle is
// remembered in localStorage. Which sound an event makes is decided by the pure functions below.

export type SoundName = 'move' | 'capture' | 'check' | 'start' | 'end' | 'lowtime';
export const SOUND_NAMES: SoundName[] = ['move', 'capture', 'check', 'start', 'end', 'lowtime'];

const MUTE_KEY = 'arbiter.sound';

/** How many pieces a chessgroundx board FEN holds (any letter is a piece; digits are gaps). */
export function pieceCount(boardFen: string): number {
  return (boardFen.split(' ')[0].match(/[a-zA-Z]/g) ?? []).length;
}

/**
 * The sound of a move from the board before it to the board after it (chessgroundx board FENs):
 * a check sounds as a check, a move that left fewer pieces as a capture, any other as a move.
 * The server says which moves give check; a capture is read from the count of pieces, so that
 * the browser needs no rules.
 */
export function moveSound(before: string, after: string, check: boolean): SoundName {
  if (check) return 'check';
  return pieceCount(after) < pieceCount(before) ? 'capture' : 'move';
}

/** Below this much time left a player's clock sounds once: a fifth of the start, at most 20 s. */
export function lowTimeThreshold(initialMs: number): number {
  return Math.min(20000, initialMs / 5);
}

/** The clock went below the threshold between two readings (the moment to warn, once). */
export function crossedLowTime(beforeMs: number, nowMs: number, thresholdMs: number): boolean {
  return beforeMs >= thresholdMs && nowMs < thresholdMs;
}

/** The sound of a change of a game's status: its start, or its end (an abort included). */
export function statusSound(before: string, after: string): SoundName | null {
  if (before === 'waiting' && after === 'playing') return 'start';
  if (before === 'playing' && (after === 'ended' || after === 'aborted')) return 'end';
  return null;
}

export function soundMuted(): boolean {
  return localStorage.getItem(MUTE_KEY) === 'off';
}

export function setSoundMuted(muted: boolean): void {
  if (muted) localStorage.setItem(MUTE_KEY, 'off');
  else localStorage.removeItem(MUTE_KEY);
}

let context: AudioContext | null = null;
let buffers: Promise<Map<SoundName, AudioBuffer>> | null = null;

/** Fetches and decodes every sound once per page; a sound that fails to load stays silent. */
function loadSounds(): Promise<Map<SoundName, AudioBuffer>> {
  if (buffers) return buffers;
  context = new AudioContext();
  const audio = context;
  buffers = Promise.all(
    SOUND_NAMES.map(async (name): Promise<[SoundName, AudioBuffer | null]> => {
      try {
        const response = await fetch(`sounds/${name}.wav`);
        if (!response.ok) return [name, null];
        return [name, await audio.decodeAudioData(await response.arrayBuffer())];
      } catch {
        return [name, null];
      }
    }),
  ).then((loaded) => new Map(loaded.filter((entry): entry is [SoundName, AudioBuffer] => entry[1] !== null)));
  return buffers;
}

/** Starts loading the sounds (a game page does, so that the first move is heard on time). */
export function preloadSounds(): void {
  if (typeof AudioContext !== 'undefined') void loadSounds();
}

/** Plays a sound unless the player muted them. */
export function playSound(name: SoundName): void {
  if (soundMuted() || typeof AudioContext === 'undefined') return;
  void loadSounds().then((loaded) => {
    const buffer = loaded.get(name);
    if (!buffer || !context) return;
    // A page not clicked yet may hold its context suspended (autoplay policy): ask to resume.
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    source.start();
  });
}
