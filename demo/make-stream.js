#!/usr/bin/env node
// Makes the demo page's stream in demo/stream/ with ffmpeg (committed: `npm start` needs no
// ffmpeg). A test pattern with a tone, H.264 Constrained Baseline + AAC-LC in fragmented MP4, HLS
// with 2 s segments, small enough to keep in the repository. `node demo/make-stream.js`
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const run = promisify(execFile);
const SECONDS = 24; // a dozen segments: the page plays it to the end in half a minute
const SEGMENT_SECONDS = 2; // -g 50 at 25 fps: a keyframe starts every segment
const VIDEO_KBPS = 350; // 426x240: ~90 KB segments
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stream');

await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });
await run('ffmpeg', [
  '-hide_banner', '-loglevel', 'error', '-y',
  '-f', 'lavfi', '-i', `testsrc2=size=426x240:rate=25:duration=${SECONDS}`,
  '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${SECONDS}`,
  '-c:v', 'libx264', '-preset', 'veryslow', '-profile:v', 'baseline', '-level', '3.0', '-pix_fmt', 'yuv420p',
  '-b:v', `${VIDEO_KBPS}k`, '-maxrate', `${VIDEO_KBPS}k`, '-bufsize', `${VIDEO_KBPS}k`, '-g', '50', '-keyint_min', '50', '-sc_threshold', '0',
  '-c:a', 'aac', '-b:a', '48k', '-ac', '2', '-bitexact', '-fflags', '+bitexact',
  '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4',
  '-hls_fmp4_init_filename', 'init.mp4', '-hls_segment_filename', path.join(OUT, 'seg-%03d.m4s'), path.join(OUT, 'index.m3u8'),
], { timeout: 300_000 });
process.stdout.write(`made ${OUT}\n`);
