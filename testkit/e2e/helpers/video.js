// The test video, made with Debian's ffmpeg at test time and cached outside the repository:
// fragmented MP4, H.264 + AAC, so MSE can append it in arbitrary byte ranges.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdir, stat, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const run = promisify(execFile);
export const VIDEO_SECONDS = 40; // Chromium must play ≥ 20 s and the fault tests need playback after a kill
const VIDEO_KBPS = 2000; // ~10 MB: ten 1 MB chunks, like a 2018 YouTube 360p/480p stream
export const VIDEO_MIME = 'video/mp4; codecs="avc1.42C01E, mp4a.40.2"'; // H.264 Constrained Baseline 3.0 + AAC-LC
const CACHE_DIR = path.join(os.tmpdir(), 'mutp-e2e-media');
const ARGS = [
  '-hide_banner', '-loglevel', 'error', '-y',
  '-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=25:duration=${VIDEO_SECONDS}`,
  '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${VIDEO_SECONDS}`,
  '-c:v', 'libx264', '-preset', 'ultrafast', '-profile:v', 'baseline', '-level', '3.0', '-pix_fmt', 'yuv420p',
  '-b:v', `${VIDEO_KBPS}k`, '-maxrate', `${VIDEO_KBPS}k`, '-bufsize', `${VIDEO_KBPS}k`, '-g', '50',
  '-c:a', 'aac', '-b:a', '64k', '-ac', '2',
  '-movflags', 'frag_keyframe+empty_moov+default_base_moof',
];

/** @returns {Promise<string>} path of the cached video, made on first use */
export async function testVideo() {
  const key = createHash('sha256').update(ARGS.join(' ')).digest('hex').slice(0, 16);
  const file = path.join(CACHE_DIR, `video-${key}.mp4`);
  try {
    if ((await stat(file)).size > 0) return file;
  } catch {
    // not made yet
  }
  await mkdir(CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp.mp4`;
  await run('ffmpeg', [...ARGS, tmp], { timeout: 120_000 });
  await rename(tmp, file); // atomic: a parallel run never reads a half-written file
  return file;
}
