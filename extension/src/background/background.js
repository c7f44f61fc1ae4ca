// Background (Chrome service worker, Firefox event page): receives the frame's records and
// fallback reports, keeps per-tab stats for the popup, ships records to Origo, and makes the
// fleet host page on a frame's request (#fleet-home).
import browser from '../shared/api.js';
import { loadSettings, clientId } from '../shared/storage.js';
import { createLogQueue, RETRY_ALARM } from './log-queue.js';
import { emptyStats, addRecord, addFallback, addSeen } from './tab-stats.js';
import { ensureHome, serveHome, hostConnections, ENSURE_HOME } from '#fleet-home';
import { createFrameBatch } from './frame-batch.js';

const FRAME_URL = browser.runtime.getURL('frame.html');
const EXTENSION_ORIGIN = browser.runtime.getURL('');
const logs = createLogQueue({
  storage: browser.storage.local,
  origoUrl: async () => (await loadSettings()).origoUrl,
  armAlarm: (name, minutes) => browser.alarms.create(name, { delayInMinutes: minutes }),
});

// session storage outlives a suspended service worker, not the browser session
const statsArea = browser.storage.session ?? browser.storage.local;
const statsKey = (tabId) => `tab:${tabId}`;
let statsChain = Promise.resolve();

/** @param {number} tabId @param {(s: import('./tab-stats.js').TabStats) => void} change */
function updateStats(tabId, change) {
  statsChain = statsChain.then(async () => {
    const key = statsKey(tabId);
    const got = await statsArea.get(key);
    const s = got[key] ?? emptyStats();
    change(s);
    await statsArea.set({ [key]: s });
  }).catch((err) => console.warn(`[mutp] stats: ${err?.message}`));
  return statsChain;
}

/**
 * One of our own pages (popup, options, frame), wherever it is shown: a toolbar popup, a tab, or
 * an iframe in a site's tab. Judged by the sender's own URL, not its tab's: a content script
 * shares our id but its URL is the site's, and a framed popup's tab URL is the site's too.
 * @param {{id?: string, url?: string}} sender
 */
const fromOwnPage = (sender) => sender.id === browser.runtime.id && typeof sender.url === 'string' && sender.url.startsWith(EXTENSION_ORIGIN);

browser.runtime.onMessage.addListener((msg, sender) => {
  if (!msg || typeof msg !== 'object') return undefined;
  const fromFrame = fromOwnPage(sender) && sender.url.startsWith(FRAME_URL);
  const tabId = sender.tab?.id;
  if (msg.t === ENSURE_HOME && fromFrame) return ensureHome(); // the fleet host page, made once
  if (fromFrame && (msg.t === 'record' || msg.t === 'fallback' || msg.t === 'seen')) {
    frameReports.add({ msg, tabId });
    return undefined;
  }
  // tabId 'sender': the tab the asking page is framed in (the popup shown inside a page)
  const statsTab = msg.tabId === 'sender' ? tabId : msg.tabId;
  if (msg.t === 'tab-stats' && fromOwnPage(sender) && Number.isInteger(statsTab)) {
    frameReports.flush(); // the popup shows every report so far
    const pageUrl = msg.tabId === 'sender' ? Promise.resolve(sender.tab?.url ?? null) : browser.tabs.get(statsTab).then((t) => t.url ?? null, () => null);
    return Promise.all([statsChain.then(() => statsArea.get(statsKey(statsTab))), pageUrl])
      .then(([got, url]) => ({ stats: got[statsKey(statsTab)] ?? emptyStats(), pageUrl: url }));
  }
  if (msg.t === 'fleet-connections' && fromOwnPage(sender)) return Promise.resolve(hostConnections());
  if (msg.t === 'log-status' && fromOwnPage(sender)) {
    frameReports.flush();
    return logs.pending().then((pending) => ({ pending, counters: logs.counters }));
  }
  return undefined;
});

/**
 * A batch of the frames' reports (frame-batch.js), each checked alone: one stats update per tab
 * and one log-queue write for all of them.
 * @param {{msg: any, tabId: number | undefined}[]} reports
 */
function takeFrameReports(reports) {
  /** @type {{id: string}[]} */
  const records = [];
  /** @type {Map<number, ((s: import('./tab-stats.js').TabStats) => void)[]>} */
  const changesByTab = new Map();
  for (const { msg: m, tabId } of reports) {
    /** @type {((s: import('./tab-stats.js').TabStats) => void) | null} */
    let change = null;
    if (m.t === 'record' && m.record && typeof m.record === 'object' && typeof m.record.id === 'string') {
      records.push(m.record);
      // a request's first record also says the frame took it for a segment, and why
      const seen = typeof m.seen === 'string' ? m.seen : null;
      change = (s) => {
        if (seen) addSeen(s, 'segment', seen);
        addRecord(s, m.record);
      };
    } else if (m.t === 'fallback' && typeof m.reason === 'string' && typeof m.url === 'string') {
      console.warn(`[mutp] fallback to direct: ${m.reason} (${m.url.slice(0, 200)})`);
      change = (s) => addFallback(s, m.url, m.reason);
    } else if (m.t === 'seen' && m.kind === 'manifest') {
      change = (s) => addSeen(s, 'manifest');
    }
    if (!change || !Number.isInteger(tabId)) continue;
    const forTab = changesByTab.get(/** @type {number} */ (tabId)) ?? [];
    forTab.push(change);
    changesByTab.set(/** @type {number} */ (tabId), forTab);
  }
  for (const [tabId, changes] of changesByTab) updateStats(tabId, (s) => { for (const change of changes) change(s); });
  if (records.length > 0) logs.add(records).catch((err) => console.warn(`[mutp] log queue: ${err?.message}`));
}
const frameReports = createFrameBatch({ take: takeFrameReports });

browser.tabs.onRemoved.addListener((tabId) => { statsArea.remove(statsKey(tabId)); });
browser.alarms.onAlarm.addListener((a) => { if (a.name === RETRY_ALARM) logs.flush(); });
browser.runtime.onInstalled.addListener(() => { clientId(); });
logs.flush(); // records left from before a restart
serveHome();
// The fleet host page is made as soon as the extension runs, not on the first video page's
// request: making it then (the worker's round trip, a new document, its scripts) delayed that
// page's first fleet download by ~270 ms and competed with the page's own start for the CPU.
loadSettings().then((s) => (s.enabled ? ensureHome() : false)).catch((err) => console.warn(`[mutp] no fleet host page yet: ${err?.message}`));
