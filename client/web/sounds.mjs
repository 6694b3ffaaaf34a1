// Synthesizes the client's sounds as small 16-bit mono WAV files (no recordings, no downloads):
// build.mjs writes them to dist/sounds/. Each is a few short tones with a quick attack and an
// exponential decay.
const RATE = 22050;

/** Tones: [frequency Hz, start s, length s, gain]. */
const SOUNDS = {
  move: [[520, 0, 0.07, 0.5], [260, 0, 0.07, 0.3]],
  capture: [[300, 0, 0.05, 0.6], [180, 0.04, 0.09, 0.6]],
  check: [[880, 0, 0.09, 0.45], [1175, 0.09, 0.12, 0.45]],
  start: [[523, 0, 0.12, 0.4], [659, 0.12, 0.12, 0.4], [784, 0.24, 0.2, 0.4]],
  end: [[784, 0, 0.14, 0.4], [659, 0.14, 0.14, 0.4], [523, 0.28, 0.3, 0.4]],
  lowtime: [[988, 0, 0.08, 0.4], [988, 0.16, 0.08, 0.4], [988, 0.32, 0.08, 0.4]],
};

function wav(tones) {
  const seconds = Math.max(...tones.map(([, start, length]) => start + length)) + 0.02;
  const samples = new Float64Array(Math.ceil(seconds * RATE));
  for (const [frequency, start, length, gain] of tones) {
    const first = Math.floor(start * RATE);
    const count = Math.floor(length * RATE);
    for (let i = 0; i < count; i++) {
      const t = i / RATE;
      const envelope = Math.min(1, t / 0.004) * Math.exp((-5 * t) / length);
      samples[first + i] += gain * envelope * Math.sin(2 * Math.PI * frequency * t);
    }
  }
  const data = Buffer.alloc(44 + samples.length * 2);
  data.write('RIFF', 0);
  data.writeUInt32LE(36 + samples.length * 2, 4);
  data.write('WAVEfmt ', 8);
  data.writeUInt32LE(16, 16);
  data.writeUInt16LE(1, 20); // PCM
  data.writeUInt16LE(1, 22); // mono
  data.writeUInt32LE(RATE, 24);
  data.writeUInt32LE(RATE * 2, 28);
  data.writeUInt16LE(2, 32);
  data.writeUInt16LE(16, 34);
  data.write('data', 36);
  data.writeUInt32LE(samples.length * 2, 40);
  samples.forEach((value, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, value)) * 32767), 44 + i * 2));
  return data;
}

/** Every sound by name, as WAV file bytes. */
export function synthesizeSounds() {
  return Object.fromEntries(Object.entries(SOUNDS).map(([name, tones]) => [name, wav(tones)]));
}
