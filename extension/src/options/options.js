// Options page: edits the settings in extension storage (validated by parseSettings).
import browser from '../shared/api.js';
import { loadSettings, SETTINGS_KEY } from '../shared/storage.js';
import { MAX_N, parseSettings } from '../shared/settings.js';
import { patternError } from '../shared/patterns.js';
import { isSite } from '../shared/sites.js';
import { showInsecureNotice } from '../shared/insecure-notice.js';

const COARSE_DECIMALS = 1; // 0.1° ≈ 11 km: enough for a 3,000 km proximity rule, not a street address
const LOCATION_MAX_AGE_MS = 60 * 60 * 1000; // a cached position from the last hour is fine

const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const status = (text, cls) => { const el = $('status'); el.textContent = text; el.className = cls; };
let location = null;
$('nFixed').max = String(MAX_N); // the one limit, not restated in the page

function show(s) {
  $('enabled').checked = s.enabled;
  $('origoUrl').value = s.origoUrl;
  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name=mode]'))) r.checked = r.value === s.mode;
  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name=n]'))) r.checked = r.value === (s.n === 'random' ? 'random' : 'fixed');
  if (s.n !== 'random') $('nFixed').value = String(s.n);
  $('patterns').value = s.patterns.join('\n');
  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name=detect]'))) r.checked = r.value === s.detect;
  $('sites').value = s.sites.join('\n');
  $('denySites').value = s.denySites.join('\n');
  $('noProgressTimeoutMs').value = String(s.noProgressTimeoutMs);
  $('proximity').checked = s.proximity;
  location = s.location;
  $('locationNote').textContent = s.proximity && s.location ? `Location in use: ${s.location.lat}, ${s.location.lon}` : '';
}

function coarseLocation() {
  return new Promise((resolve, reject) => {
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ lat: Number(p.coords.latitude.toFixed(COARSE_DECIMALS)), lon: Number(p.coords.longitude.toFixed(COARSE_DECIMALS)) }),
      (err) => reject(err), { enableHighAccuracy: false, maximumAge: LOCATION_MAX_AGE_MS, timeout: 15_000 });
  });
}

$('proximity').addEventListener('change', async () => {
  if (!$('proximity').checked) { location = null; $('locationNote').textContent = ''; return; }
  try {
    location = await coarseLocation();
    $('locationNote').textContent = `Location in use: ${location.lat}, ${location.lon}`;
  } catch (err) {
    $('proximity').checked = false;
    location = null;
    $('locationNote').textContent = `No location: ${err?.message ?? 'permission denied'}. Proxies are chosen without it.`;
  }
});

document.getElementById('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const patterns = $('patterns').value.split('\n').map((p) => p.trim()).filter(Boolean);
  const bad = patterns.filter((p) => patternError(p) !== null);
  if (bad.length) return status(`Invalid pattern: ${bad[0]} (expected [scheme://]host[:port]/path)`, 'error');
  const lines = (id) => $(id).value.split('\n').map((p) => p.trim().toLowerCase()).filter(Boolean);
  const sites = lines('sites');
  const denySites = lines('denySites');
  const badSite = [...sites, ...denySites].find((h) => !isSite(h));
  if (badSite) return status(`Invalid site: ${badSite} (expected a host name such as example.com or *.example.com)`, 'error');
  const detect = /** @type {HTMLInputElement} */ (document.querySelector('input[name=detect]:checked'))?.value ?? 'all-sites';
  const mode = /** @type {HTMLInputElement} */ (document.querySelector('input[name=mode]:checked'))?.value ?? 'random';
  const nKind = /** @type {HTMLInputElement} */ (document.querySelector('input[name=n]:checked'))?.value ?? 'random';
  const current = (await browser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  const next = {
    ...current,
    enabled: $('enabled').checked, origoUrl: $('origoUrl').value.trim(), mode,
    n: nKind === 'random' ? 'random' : Number($('nFixed').value), patterns, detect, sites, denySites,
    noProgressTimeoutMs: Number($('noProgressTimeoutMs').value), proximity: $('proximity').checked && location !== null, location,
  };
  const { problems } = parseSettings(next);
  if (problems.length) return status(problems.join('; '), 'error');
  await browser.storage.local.set({ [SETTINGS_KEY]: next });
  status('Saved.', 'ok');
  showInsecureNotice(document.getElementById('insecureNotice'), next.origoUrl);
});

loadSettings().then((s) => {
  show(s);
  showInsecureNotice(document.getElementById('insecureNotice'), s.origoUrl);
});
