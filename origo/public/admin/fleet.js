// Fleet: the live proxy table (socket.io 'fleet' snapshot, then one 'proxy' event per change).
import { byId, esc, fixed, initPage, rate, bytes, when } from './common.js';

const socket = initPage();
/** @type {Map<string, any>} */
const proxies = new Map();

function render() {
  const list = [...proxies.values()].sort((a, b) => a.proxyId.localeCompare(b.proxyId));
  const up = list.filter((p) => p.connected).length;
  byId('summary').textContent = `${up} connected, ${list.length - up} disconnected`;
  byId('fleet').querySelector('tbody').innerHTML = list.map((p) => `
    <tr class="${p.connected ? 'up' : 'down'}" data-proxy="${esc(p.proxyId)}">
      <td>${esc(p.proxyId)}</td>
      <td><span class="badge ${p.connected ? 'up' : 'down'}">${p.connected ? 'connected' : 'disconnected'}</span></td>
      <td>${p.location ? `${fixed(p.location.lat, 2)}, ${fixed(p.location.lon, 2)}` : '–'}</td>
      <td class="num">${rate(p.uploadRateBps)}</td>
      <td class="num">${rate(p.currentUploadBps)}</td>
      <td class="num">${p.activeSessions}</td>
      <td class="num">${bytes(p.bytesSent)}</td>
      <td class="num">${p.cpu === null ? '–' : `${fixed(p.cpu * 100)} %`}</td>
      <td>${when(p.lastSeen)}</td>
      <td class="muted">${esc(p.publicUrl ?? '')}${p.notOffered ? `<br><span class="badge down" title="${esc(p.notOffered)}">not offered</span> ${esc(p.notOffered)}` : ''}</td>
    </tr>`).join('') || '<tr><td colspan="10" class="muted">no proxy has connected yet</td></tr>';
}

socket.on('fleet', (/** @type {any[]} */ list) => {
  proxies.clear();
  for (const p of list) proxies.set(p.proxyId, p);
  render();
});
socket.on('proxy', (/** @type {any} */ p) => {
  proxies.set(p.proxyId, p);
  render();
});
render();
