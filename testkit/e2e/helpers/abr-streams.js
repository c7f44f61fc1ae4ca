// A bitrate ladder of the test pattern for the ABR tests: three video renditions (no audio),
// HLS (a master playlist, a folder per rendition) and DASH (SegmentTemplate), made with Debian's
// ffmpeg and cached. A response's rendition is read from its URL (renditionOf).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const run = promisify(execFile);
export const LADDER = /** @type {const} */ ([
  { size: '320x180', kbps: 250 },
  { size: '640x360', kbps: 800 },
  { size: '960x540', kbps: 2400 },
]);
export const ABR_SECONDS = 40;
const SEGMENT_SECONDS = 2; // -g 50 at 25 fps
const LAYOUT = 'abr-v1'; // bump when the layout changes
const CACHE_DIR = path.join(os.tmpdir(), 'mutp-e2e-media');

/** @returns {Promise<string>} the folder holding hls/master.m3u8 and dash/stream.mpd */
export async function abrStreams() {
  const dir = path.join(CACHE_DIR, LAYOUT);
  try {
    if ((await stat(path.join(dir, 'done'))).isFile()) return dir;
  } catch {
    // not made yet
  }
  const tmp = `${dir}.${process.pid}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(path.join(tmp, 'hls'), { recursive: true });
  await mkdir(path.join(tmp, 'dash'), { recursive: true });
  const input = ['-f', 'lavfi', '-i', `testsrc2=size=960x540:rate=25:duration=${ABR_SECONDS}`];
  const encode = LADDER.flatMap((r, i) => ['-map', '0:v', `-s:v:${i}`, r.size, `-b:v:${i}`, `${r.kbps}k`, `-maxrate:v:${i}`, `${r.kbps}k`, `-bufsize:v:${i}`, `${r.kbps}k`]);
  const common = ['-hide_banner', '-loglevel', 'error', '-y', ...input, ...encode,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', '50', '-keyint_min', '50', '-sc_threshold', '0'];
  await run('ffmpeg', [...common, '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4',
    '-var_stream_map', LADDER.map((_, i) => `v:${i}`).join(' '), '-master_pl_name', 'master.m3u8',
    '-hls_fmp4_init_filename', 'init.mp4', '-hls_segment_filename', path.join(tmp, 'hls', 'v%v', 'seg-%03d.m4s'), path.join(tmp, 'hls', 'v%v', 'index.m3u8')], { timeout: 300_000 });
  await run('ffmpeg', [...common, '-f', 'dash', '-seg_duration', String(SEGMENT_SECONDS), '-use_template', '1', '-use_timeline', '0',
    '-adaptation_sets', 'id=0,streams=v', '-init_seg_name', 'init-$RepresentationID$.m4s', '-media_seg_name', 'seg-$RepresentationID$-$Number%05d$.m4s', 'stream.mpd'], { cwd: path.join(tmp, 'dash'), timeout: 300_000 });
  await writeFile(path.join(tmp, 'done'), '');
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  return dir;
}

/** The ladder rung (0 = lowest) a media URL of abrStreams() belongs to, or null. @param {string} url */
export function renditionOf(url) {
  const m = /\/hls\/v(\d)\/|\/dash\/(?:init|seg)-(\d)[-.]/.exec(new URL(url).pathname);
  return m ? Number(m[1] ?? m[2]) : null;
}
