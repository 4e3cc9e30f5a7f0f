/**
 * A short two-note chime, made with WebAudio: no sound file to load. Browsers let a page play sound only after the
 * user clicked in it: `allowSound` is called on such a click (turning notifications on), and a later chime resumes
 * the same context.
 */
let audio: AudioContext | undefined;

export function allowSound(): void {
  audio ??= new AudioContext();
  void audio.resume();
}

export function chime(): void {
  allowSound();
  const ctx = audio!;
  const start = ctx.currentTime;
  [880, 1320].forEach((frequency, i) => {
    const at = start + i * 0.12;
    const tone = ctx.createOscillator();
    const volume = ctx.createGain();
    tone.frequency.value = frequency;
    volume.gain.setValueAtTime(0.0001, at);
    volume.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
    tone.connect(volume).connect(ctx.destination);
    tone.start(at);
    tone.stop(at + 0.32);
  });
}
