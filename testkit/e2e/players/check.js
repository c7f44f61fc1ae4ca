// Compare the media responses a player received (play.js's `__play.responses`) with the files
// on disk: length, SHA-256, the origin's Content-Type and Content-Range. Used by the real-player
// e2e test and by the players bench.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** @param {string | null} range  `bytes=a-b`, `bytes=a-` or null @param {number} size */
export function byteSpan(range, size) {
  const m = /^bytes=(\d+)-(\d*)$/.exec(range ?? '');
  if (!m) return { start: 0, end: size - 1 };
  return { start: Number(m[1]), end: m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1) };
}

/**
 * @param {string} mediaDir
 * @param {{url: string, range: string | null, bytes: number, sha: string, type: string | null, contentRange: string | null}[]} responses
 * @returns {Promise<string[]>} one line per wrong response; empty when all are right
 */
export async function wrongResponses(mediaDir, responses) {
  const wrong = [];
  for (const r of responses) {
    const all = await readFile(path.join(mediaDir, new URL(r.url).pathname.slice('/media/'.length)));
    const { start, end } = byteSpan(r.range, all.length);
    const want = all.subarray(start, end + 1);
    const what = `${r.url} ${r.range ?? ''}`;
    if (r.bytes !== want.length) wrong.push(`${what}: ${r.bytes} bytes, want ${want.length}`);
    else if (r.sha !== createHash('sha256').update(want).digest('hex')) wrong.push(`${what}: bytes differ from the file`);
    else if (r.type !== 'video/mp4') wrong.push(`${what}: Content-Type ${r.type}, not the origin's`);
    else if (r.range && r.contentRange !== `bytes ${start}-${end}/${all.length}`) wrong.push(`${what}: Content-Range ${r.contentRange}`);
  }
  return wrong;
}
