/**
 * Media for a few demo recordings, so that a download can be tried at once (GraphiQL's download
 * tab, `POST /external/v1/recordings/{id}/download`): the account admin's three newest own
 * recordings get a short audio file each, a WAV of a few tones made here (no file to ship).
 */
import { demoPersonas } from './demo.js';
import type { Dataset } from './format.js';

export interface DemoMedia {
  recordingId: number;
  contentType: string;
  bytes: Buffer;
}

const RATE = 8000;

/** A 16-bit mono WAV of `notes` (Hz), a quarter of a second each, softly faded in and out. */
function wav(notes: number[]): Buffer {
  const perNote = RATE / 4;
  const samples = notes.length * perNote;
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16); // the fmt chunk's size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(RATE, 24);
  out.writeUInt32LE(RATE * 2, 28); // bytes a second
  out.writeUInt16LE(2, 32); // bytes a frame
  out.writeUInt16LE(16, 34); // bits a sample
  out.write('data', 36);
  out.writeUInt32LE(samples * 2, 40);
  notes.forEach((hz, n) => {
    for (let i = 0; i < perNote; i++) {
      const fade = Math.min(1, i / 200, (perNote - i) / 200);
      const value = Math.round(8000 * fade * Math.sin((2 * Math.PI * hz * i) / RATE));
      out.writeInt16LE(value, 44 + (n * perNote + i) * 2);
    }
  });
  return out;
}

const tunes = [
  [523, 659, 784, 1047],
  [440, 554, 659, 880],
  [392, 494, 587, 784],
];

/** The media of the demo dataset `dataset` (demoDataset()'s). */
export function demoMedia(dataset: Dataset): DemoMedia[] {
  const admin = demoPersonas.find((p) => p.label === 'account admin')!.email;
  return dataset.meetings
    .filter((m) => m.recorded_by === admin)
    .sort((a, b) => Date.parse(b.recording_start_time) - Date.parse(a.recording_start_time))
    .slice(0, tunes.length)
    .map((m, i) => ({ recordingId: m.recording_id, contentType: 'audio/wav', bytes: wav(tunes[i]!) }));
}
