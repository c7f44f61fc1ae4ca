// HLS and DASH renditions of the test video, made with Debian's ffmpeg (stream copy) and cached
// next to it. Segment names carry no media extension, so only what the extension learns from
// the manifests can pick them out:
//   hls/index.m3u8     fMP4 in one file (`media-v.data`), EXT-X-MAP + EXT-X-BYTERANGE
//   dash/stream.mpd    SegmentTemplate, `init-$RepresentationID$` and `seg-$RepresentationID$-$Number%05d$`
//   dash1/list.mpd     SegmentList in one file per representation, Initialization range + mediaRange
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readFile, writeFile, rename, rm, stat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { testVideo } from './video.js';

const run = promisify(execFile);
const SEGMENT_SECONDS = 2; // the test video's keyframe interval (-g 50 at 25 fps)
const LAYOUT_VERSION = 'v1'; // bump when the layout above changes

/** @returns {Promise<string>} the folder holding hls/, dash/ and dash1/ */
export async function testStreams() {
  const video = await testVideo();
  const dir = `${video.replace(/\.mp4$/, '')}-streams-${LAYOUT_VERSION}`;
  try {
    if ((await stat(path.join(dir, 'done'))).isFile()) return dir;
  } catch {
    // not made yet
  }
  const tmp = `${dir}.${process.pid}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  for (const d of ['hls', 'dash', 'dash1']) await mkdir(path.join(tmp, d), { recursive: true });
  const ff = (cwd, args) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', video, '-c', 'copy', ...args], { cwd, timeout: 120_000 });
  await ff(path.join(tmp, 'hls'), ['-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4', '-hls_flags', 'single_file', 'index.m3u8']);
  const hlsDir = path.join(tmp, 'hls');
  const single = (await readdir(hlsDir)).find((f) => f.endsWith('.m4s'));
  if (!single) throw new Error('ffmpeg made no single-file HLS media');
  await rename(path.join(hlsDir, single), path.join(hlsDir, 'media-v.data'));
  const playlist = await readFile(path.join(hlsDir, 'index.m3u8'), 'utf8');
  await writeFile(path.join(hlsDir, 'index.m3u8'), playlist.split(single).join('media-v.data'));
  await ff(path.join(tmp, 'dash'), ['-map', '0', '-f', 'dash', '-seg_duration', String(SEGMENT_SECONDS), '-use_template', '1', '-use_timeline', '0',
    '-init_seg_name', 'init-$RepresentationID$', '-media_seg_name', 'seg-$RepresentationID$-$Number%05d$', 'stream.mpd']);
  await ff(path.join(tmp, 'dash1'), ['-map', '0', '-f', 'dash', '-seg_duration', String(SEGMENT_SECONDS), '-single_file', '1',
    '-single_file_name', 'media-$RepresentationID$.data', '-use_template', '0', '-use_timeline', '0', 'list.mpd']);
  await writeFile(path.join(tmp, 'done'), '');
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir); // atomic: a parallel run never reads a half-made folder
  return dir;
}
