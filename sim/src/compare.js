// Simulator against a testbed campaign: for each box of the campaign's results (one JSON record
// per download, testbed/src campaign's results.jsonl), simulate downloads of the same sizes over
// the same proxies, delay and loss, and compare the medians of goodput.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '@mutp/protocol';
import { simulateOnce } from './simulate.js';
import { parseRates } from './units.js';
import { SCTP_INITIAL_CWND_PACKETS, SCTP_SENDERS } from './sctp.js';
import { TCP_CC_KINDS } from './tcp-cc.js';

/** The SCTP sender of a campaign that did not record its proxies' build: it predates the loss-tolerant one. */
export const UNRECORDED_SCTP_SENDER = 'usrsctp';

/**
 * Lower-layer bytes per packet the campaign's shaped links count besides the transport's own
 * (htb counts the Ethernet frame): Ethernet 14 + IPv4 20 + UDP 8 / TCP 20–32, about 54.
 */
export const CAMPAIGN_OVERHEAD_BYTES = 54;
/** The testbed's shaper queue, ms of each link's rate (shaping/shape's QUEUE_MS; a test holds the two equal). */
export const TESTBED_QUEUE_MS = 50;
/** Simulated downloads per box by default: enough for a stable median, quick to run. */
export const DEFAULT_PER_BOX = 20;

/**
 * @typedef {object} CampaignRecord  one line of results.jsonl (the fields used here)
 * @property {string} key            composition|mode|wW|gG|lossL|sizeBin
 * @property {string} composition    e.g. 1x1792+3x896 (KiB/s)
 * @property {string} mode
 * @property {number} window
 * @property {number} generationSize
 * @property {number} lossPct
 * @property {string} sizeBin
 * @property {boolean} ok
 * @property {number} netBytes
 * @property {number} goodputBps
 */

/**
 * How a download on new connections starts: each SCTP association's cwnd (packets), and whether
 * the proxy starts from the path it measured to this client before (its path cache).
 * @typedef {{ startCwnd: number, pathKept: boolean }} NewConnectionModel
 */

/**
 * Read a campaign folder (results.jsonl, meta.json).
 * @param {string} dir
 * @returns {{ records: CampaignRecord[], delayMs: number, maxBurst: number | null, newConnections: NewConnectionModel,
 *   sctpSender: import('./sctp.js').SctpSender, tcpCc: import('./tcp-cc.js').TcpCcKind }}
 *   maxBurst: the proxies' SCTP max burst in the simulator's terms (0: off), null when the campaign did not record it;
 *   sctpSender: the proxies' SCTP sender (sctpSender in meta.json, else as its rtcBuilds describe it, else usrsctp's);
 *   tcpCc: the hosts' TCP congestion control (tcpCongestion, else cubic);
 *   newConnections: libdatachannel's initial cwnd and no path cache when the campaign did not record them
 */
export function readCampaign(dir) {
  const records = readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  let meta = {};
  try {
    meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
  } catch {
    // an older campaign without meta.json ran without added delay
  }
  const burst = meta.sctpMaxBurst;
  const newConnections = {
    startCwnd: typeof meta.sctpInitialCwnd === 'number' && meta.sctpInitialCwnd > 0 ? meta.sctpInitialCwnd : SCTP_INITIAL_CWND_PACKETS,
    pathKept: meta.pathCache === true,
  };
  return {
    records, delayMs: meta.delayMs ?? 0, maxBurst: typeof burst === 'number' ? Math.max(0, burst) : null, newConnections,
    sctpSender: campaignSctpSender(meta), tcpCc: TCP_CC_KINDS.includes(meta.tcpCongestion) ? meta.tcpCongestion : 'cubic',
  };
}

/**
 * The proxies' SCTP sender as a campaign's meta.json says: its sctpSender field, else the build
 * summaries (rtcBuilds: the proxy's describeRtcBuild names a loss-tolerant sender), else the stock one.
 * @param {{ sctpSender?: unknown, rtcBuilds?: unknown }} meta
 * @returns {import('./sctp.js').SctpSender}
 */
export function campaignSctpSender(meta) {
  if (SCTP_SENDERS.includes(/** @type {any} */ (meta.sctpSender))) return /** @type {any} */ (meta.sctpSender);
  const builds = Array.isArray(meta.rtcBuilds) ? meta.rtcBuilds.map(String) : [];
  if (builds.length > 0 && builds.every((b) => b.includes('loss-tolerant sender'))) return 'loss-tolerant';
  return UNRECORDED_SCTP_SENDER;
}

/**
 * How many of a MUTP download's n sources started on new connections. 'recorded': as its record
 * says (connectionsOpened; a record that does not say counts as kept, as the campaign's client
 * keeps its connections); 'new' / 'kept': all or none.
 * @param {CampaignRecord & { connectionsOpened?: number | null }} r @param {'recorded' | 'new' | 'kept'} how @param {number} n
 */
export function newConnectionCount(r, how, n) {
  if (how !== 'recorded') return how === 'new' ? n : 0;
  return recordedCount(r.connectionsOpened, n);
}

/** A record's count of new connections as sources: 0 when it does not say, at most n. @param {number | null | undefined} opened @param {number} n */
function recordedCount(opened, n) {
  return typeof opened === 'number' && opened > 0 ? Math.min(n, Math.floor(opened)) : 0;
}

/**
 * The simulator's per-source start of a download with `opened` of its n sources on new
 * connections: those start with a new association's cwnd (and the kept path only with the path
 * cache), the others as kept. The record does not say which sources were new: the k-th download
 * of a box takes sources k, k+1, … (mod n), so a mixed box is spread over its links.
 * @param {number} n @param {number} opened @param {number} k @param {NewConnectionModel} model
 * @returns {{ kept: boolean | boolean[], startCwnd?: number | number[] }}
 */
export function connectionStart(n, opened, k, model) {
  if (opened <= 0) return { kept: true };
  if (opened >= n) return { kept: model.pathKept, startCwnd: model.startCwnd };
  const isNew = newSources(n, opened, k);
  return { kept: isNew.map((fresh) => (fresh ? model.pathKept : true)), startCwnd: isNew.map((fresh) => (fresh ? model.startCwnd : Infinity)) };
}

/**
 * Which of n sources of the k-th download of a box were among the `opened` new connections:
 * sources k, k+1, … (mod n).
 * @param {number} n @param {number} opened @param {number} k
 */
export function newSources(n, opened, k) {
  return Array.from({ length: n }, (_, i) => (i - k % n + n) % n < opened);
}

/**
 * An HTTP download's new TCP connections (tcpConnectionsOpened; a record that does not say
 * counts as kept): that many of its sources pay the handshake first.
 * @param {CampaignRecord & { tcpConnectionsOpened?: number | null }} r @param {number} n @param {number} k
 * @returns {{ newTcp?: boolean[] }}
 */
export function tcpStart(r, n, k) {
  const opened = recordedCount(r.tcpConnectionsOpened, n);
  return opened > 0 ? { newTcp: newSources(n, opened, k) } : {};
}

/**
 * Each source's start (ms after the request reached its proxy) as the proxies recorded it
 * (proxyStartMs: the origin fetch, hashing and set-up before the first datagram, which a proxy
 * sharing the testbed's 2 cores pays in CPU too); 0 for a source without one, and for every
 * source with how = 'zero' or a record without them (HTTP modes, older campaigns).
 * @param {CampaignRecord & { proxyStartMs?: (number | null)[] | null }} r @param {number} n @param {'recorded' | 'zero'} how
 * @returns {number[]}
 */
export function proxyStarts(r, n, how) {
  const s = how === 'recorded' && Array.isArray(r.proxyStartMs) ? r.proxyStartMs : [];
  return Array.from({ length: n }, (_, i) => (typeof s[i] === 'number' && s[i] >= 0 ? s[i] : 0));
}

/** FIGURE 11's boxes: 1–2 MB chunks, w=240, g=24, no loss. @param {CampaignRecord} r */
export function isFigure11(r) {
  return r.window === 240 && r.generationSize === 24 && r.lossPct === 0 && r.sizeBin === '1-2MB';
}

/**
 * @param {CampaignRecord[]} records
 * @param {object} o
 * @param {number} o.delayMs
 * @param {number} [o.perBox]
 * @param {number} [o.maxBurst]
 * @param {import('./sctp.js').SctpSender} [o.sctpSender]  the proxies' SCTP sender (default: usrsctp's, as a campaign that did not record it)
 * @param {import('./tcp-cc.js').TcpCcKind} [o.tcpCc]     the hosts' TCP congestion control (default cubic)
 * @param {number} [o.overheadBytes]
 * @param {NewConnectionModel} [o.newConnections]   how a download on new connections starts (default: libdatachannel's cwnd, no path cache)
 * @param {'recorded' | 'new' | 'kept'} [o.connections]  which downloads started on new connections (newConnectionCount)
 * @param {'recorded' | 'zero'} [o.proxyStart]  each source's start: as its proxy recorded it (default), or at once (proxyStarts)
 * @param {(r: CampaignRecord) => boolean} [o.filter]
 * @param {(box: string) => void} [o.onBox]
 * @returns {Promise<{ box: string, simGoodputBps: number, testbedGoodputBps: number, ratio: number, simRuns: number, testbedRuns: number }[]>}
 */
export async function compareCampaign(records, o) {
  const perBox = o.perBox ?? DEFAULT_PER_BOX;
  /** @type {Map<string, CampaignRecord[]>} */
  const boxes = new Map();
  for (const r of records) {
    if (!r.ok || !(o.filter ?? isFigure11)(r)) continue;
    const list = boxes.get(r.key) ?? [];
    list.push(r);
    boxes.set(r.key, list);
  }
  const rows = [];
  for (const [box, list] of [...boxes].sort(([a], [b]) => a.localeCompare(b))) {
    o.onBox?.(box);
    const rates = parseRates(list[0].composition.split('+').map((c) => `${c}KiB`).join(','));
    const sim = [];
    for (let k = 0; k < Math.min(perBox, list.length); k++) {
      const r = list[k];
      const mutp = r.mode === 'coded' || r.mode === 'uncoded';
      const start = mutp
        ? connectionStart(rates.length, newConnectionCount(r, o.connections ?? 'recorded', rates.length), k,
          o.newConnections ?? { startCwnd: SCTP_INITIAL_CWND_PACKETS, pathKept: false })
        : tcpStart(r, rates.length, k);
      const config = {
        mode: /** @type {any} */ (r.mode), rates, delayMs: o.delayMs, loss: r.lossPct / 100, startDelayMs: proxyStarts(r, rates.length, o.proxyStart ?? 'recorded'), downCapBps: Infinity,
        size: r.netBytes, params: { window: r.window, generationSize: r.generationSize }, seeds: 1,
        overheadBytes: o.overheadBytes ?? CAMPAIGN_OVERHEAD_BYTES, maxBurst: o.maxBurst,
        sctpSender: o.sctpSender ?? UNRECORDED_SCTP_SENDER, tcpCc: o.tcpCc,
        // a kept connection: its cwnd and path; a new one: a new association's cwnd, and the path
        // only where the proxies remember it per client
        ...start,
        queueMs: TESTBED_QUEUE_MS,
      };
      const s = await simulateOnce(config, k + 1);
      if (s.ok && s.verified) sim.push((s.netBytes * 1000) / s.durationMs);
    }
    const simGoodputBps = median(sim);
    const testbedGoodputBps = median(list.map((r) => r.goodputBps));
    rows.push({ box, simGoodputBps, testbedGoodputBps, ratio: simGoodputBps / testbedGoodputBps, simRuns: sim.length, testbedRuns: list.length });
  }
  return rows;
}
