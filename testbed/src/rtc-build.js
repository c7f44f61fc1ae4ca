// Which WebRTC build a testbed proxy runs: the proxy logs it once at start
// ("webrtc build: <summary> {"rtcBuild": …}", proxy/src/rtc/index.js).

import { readFileSync } from 'node:fs';

const MARK = ' webrtc build: ';

/**
 * @param {string} logFile  the proxy's log
 * @returns {{ summary: string, kind: string, maxBurst?: number, initialCwnd?: number | null, libdatachannel?: string } | null} null: not logged (yet)
 */
export function readProxyRtcBuild(logFile) {
  let text;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n').filter((l) => l.includes(MARK)).pop(); // logs are appended run after run: the last start
  if (!line) return null;
  const rest = line.slice(line.indexOf(MARK) + MARK.length);
  const brace = rest.indexOf(' {');
  const summary = brace >= 0 ? rest.slice(0, brace) : rest;
  let fields = {};
  try {
    fields = brace >= 0 ? JSON.parse(rest.slice(brace + 1)).rtcBuild ?? {} : {};
  } catch {
    // a summary without readable fields is still worth reporting
  }
  return { kind: summary.split(' ')[0], ...fields, summary };
}

/**
 * The proxies' SCTP sender in one word: 'loss-tolerant' (random loss does not cut its window) or
 * 'usrsctp' (every loss halves it) when every proxy reported the same, 'mixed' when they differ,
 * null when none reported one (an older proxy, or none answered).
 * @param {({sender?: string} | null | undefined)[]} builds  as GET /rtc/build answers
 * @returns {string | null}
 */
export function sctpSender(builds) {
  const senders = new Set(builds.map((b) => b?.sender ?? null));
  if (senders.size === 1) return [...senders][0];
  return senders.size === 0 ? null : 'mixed';
}
