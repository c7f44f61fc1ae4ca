// Human-readable output of the `mutp` CLI.

const MB = 1e6; // the paper reports MB/s in decimal megabytes

/** @param {number} bps */
export const mbps = (bps) => `${(bps / MB).toFixed(2)} MB/s`;

/** @param {number} bytes */
export function bytesText(bytes) {
  if (bytes >= MB) return `${(bytes / MB).toFixed(2)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

/**
 * @param {any} s  a stats record (docs/log-record.md)
 * @returns {string}
 */
export function formatStats(s) {
  const lines = [
    `mode ${s.mode}, ${s.n} prox${s.n === 1 ? 'y' : 'ies'}: ${s.proxyIds.join(', ')}`,
    `net ${bytesText(s.netBytes)}, gross ${bytesText(s.grossBytes)} in ${(s.durationMs / 1000).toFixed(3)} s` +
      (s.firstPacketMs != null ? ` (first byte after ${s.firstPacketMs.toFixed(1)} ms)` : ''),
    `goodput ${mbps(s.goodputBps)}, throughput ${mbps(s.throughputBps)}, normalized goodput ${s.normalizedGoodput.toFixed(3)}`,
    `packets ${s.packets}, duplicates ${s.duplicates}` +
      (s.lossEstimate != null ? `, loss ${(s.lossEstimate * 100).toFixed(2)}%` : '') +
      (s.serverFetchMs != null ? `, server fetch ${s.serverFetchMs.toFixed(1)} ms` : ''),
  ];
  for (const p of s.perProxy ?? []) {
    lines.push(`  ${p.proxyId}: ${bytesText(p.bytes ?? 0)}, ${p.packets ?? 0} packets` + (p.error ? `, error ${p.error.code}` : ''));
  }
  if (s.error) lines.push(`error ${s.error.code}: ${s.error.message}`);
  return lines.join('\n');
}

/**
 * One object of several, on one line.
 * @param {any} s  a stats record
 */
export function formatStatsLine(s) {
  if (s.error) return `error ${s.error.code}: ${s.error.message}`;
  return `${bytesText(s.netBytes)} in ${(s.durationMs / 1000).toFixed(3)} s, goodput ${mbps(s.goodputBps)}, normalized goodput ${s.normalizedGoodput.toFixed(3)}`;
}

/** @param {import('./batch.js').BatchSummary} b */
export function formatSummary(b) {
  const lines = [
    `${b.objects} object${b.objects === 1 ? '' : 's'}: ${b.ok} ok, ${b.failed} failed` + (b.notTried ? `, ${b.notTried} not tried (interrupted)` : ''),
    `net ${bytesText(b.netBytes)}, gross ${bytesText(b.grossBytes)} in ${(b.wallMs / 1000).toFixed(3)} s: goodput ${mbps(b.goodputBps)}, normalized goodput ${b.normalizedGoodput.toFixed(3)}`,
  ];
  if (b.connections) lines.push(`WebRTC connections: ${b.connections.opened} opened, ${b.connections.reused} reused`);
  return lines.join('\n');
}

/**
 * @param {any[]} proxies  entries of GET /api/proxies
 */
export function formatProxies(proxies) {
  if (proxies.length === 0) return 'no live proxies';
  const rows = proxies.map((p) => [
    p.id, p.url,
    p.location ? `${p.location.lat.toFixed(2)},${p.location.lon.toFixed(2)}` : '-',
    p.uploadRateBps != null ? mbps(p.uploadRateBps) : '-',
    p.activeSessions != null ? String(p.activeSessions) : '-',
  ]);
  const head = ['ID', 'URL', 'LOCATION', 'UPLOAD', 'SESSIONS'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
