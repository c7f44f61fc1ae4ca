// Synthetic, paper-shaped client records for demos and the dashboard benchmark (npm run seed-logs).
// The shapes follow the paper's campaign (section V): 18 proxies, 14 at 896 KB/s and 4 at
// 1,792 KB/s; N in {1, 2, 4, 6}; chunks mostly 1–2 MB (FIGURE 10); w, g, loss as in FIGURES 13–15.
// Values are plausible, not measured: they exist to exercise the dashboard, never to draw conclusions.

/** Paper V: 14 proxies limited to 896 KB/s and 4 to 1,792 KB/s (KB = 1,024 bytes). */
const SLOW_BPS = 896 * 1024;
const FAST_BPS = 1792 * 1024;
export const FLEET = [
  ...Array.from({ length: 14 }, (_, i) => ({ id: `aws-${['virginia', 'ohio', 'oregon', 'frankfurt', 'paris'][i % 5]}-${i + 1}`, rateBps: SLOW_BPS })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `aws-fast-${i + 1}`, rateBps: FAST_BPS })),
];
export const SEED_MODES = ['parallel-http', 'uncoded', 'coded'];
export const SEED_N = [1, 2, 4, 6];
/** Window sizes (FIGURE 14 plus 480 from its text) and their weights: most of the campaign ran w = 240. */
const WINDOWS = [[240, 0.7], [120, 0.1], [360, 0.12], [480, 0.08]];
/** Generation sizes (FIGURE 13); g = 24 was the default. */
const GENERATIONS = [[24, 0.75], [12, 0.12], [20, 0.13]];
const FEEDBACK_EVERY = [[8, 0.8], [4, 0.1], [16, 0.1]];
/** Loss rates (FIGURE 15): most downloads ran on the unshaped link. */
const LOSS = [[0, 0.8], [0.001, 0.06], [0.005, 0.06], [0.01, 0.05], [0.02, 0.03]];
/** MUTP payload per packet, bytes (fits one SCTP message under the path MTU). */
const PAYLOAD_BYTES = 1100;
/** Share of failed downloads. */
const ERROR_SHARE = 0.01;
/** Campaign span (paper: June 2018 – April 2019). */
const CAMPAIGN_START_MS = Date.UTC(2018, 5, 1);
const CAMPAIGN_MS = Date.UTC(2019, 3, 30) - CAMPAIGN_START_MS;

/** A small seeded PRNG (mulberry32): the same seed gives the same campaign. @param {number} seed */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {() => number} rnd @param {number[][]} table [value, weight] */
function weighted(rnd, table) {
  let x = rnd();
  for (const [v, w] of table) if ((x -= w) < 0) return v;
  return table[table.length - 1][0];
}
/** Log-normal noise with median 1. @param {() => number} rnd @param {number} sigma */
function noise(rnd, sigma) {
  const u = Math.max(rnd(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
  return Math.exp(sigma * z);
}
/** A UUID v4 from the PRNG (ids must be unique, not secret). @param {() => number} rnd */
function uuid(rnd) {
  const h = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16));
  h[12] = '4';
  h[16] = ((parseInt(h[16], 16) & 3) | 8).toString(16);
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** Chunk size, bytes (FIGURE 10): 60% in 1–2 MB, the rest from 1 KB to 5 MB, log-uniform. @param {() => number} rnd */
function chunkBytes(rnd) {
  if (rnd() < 0.6) return Math.round((1 + rnd()) * 1024 * 1024);
  return Math.round(1024 * 2 ** (rnd() * Math.log2(5 * 1024)));
}

/**
 * A packet log for one MUTP download: each proxy sends at its rate; uncoded duplicates arrive all
 * along, coded ones in bursts at generation ends (paper FIGURES 8 and 9). Feedback every `every` packets.
 * @param {() => number} rnd @param {{ mode: string, rates: number[], netBytes: number, g: number, every: number, loss: number }} o
 */
function packetTimeline(rnd, { mode, rates, netBytes, g, every, loss }) {
  const needed = Math.ceil(netBytes / PAYLOAD_BYTES);
  const next = rates.map((r) => 20 + rnd() * 10 + (PAYLOAD_BYTES / r) * 1000 * rnd());
  /** @type {[number, number, number, number][]} */
  const log = [];
  /** @type {number[]} */
  const feedback = [];
  let dof = 0;
  while (dof < needed && log.length < needed * 3) {
    let s = 0;
    for (let i = 1; i < next.length; i++) if (next[i] < next[s]) s = i;
    const t = next[s];
    next[s] += (PAYLOAD_BYTES / rates[s]) * 1000 * noise(rnd, 0.2);
    if (rnd() < loss) continue;
    const inGeneration = (dof % g) / g;
    const dupChance = mode === 'coded' ? (inGeneration > 0.9 ? 0.25 : 0.01) : 0.08 + 0.1 * (rates.length - 1) / 5;
    const useful = rnd() >= dupChance;
    if (useful) dof++;
    log.push([Math.round(t * 100) / 100, s, useful ? 1 : 0, dof]);
    if (log.length % every === 0) feedback.push(Math.round((t + 0.3) * 100) / 100);
  }
  return { log, feedback };
}

/**
 * Record number `i` of a synthetic campaign (deterministic in `seed` and `i`).
 * @param {number} i @param {{ seed?: number, withPacketLog?: boolean, startedAtMs?: number }} [opts]
 */
export function syntheticRecord(i, { seed = 1, withPacketLog = false, startedAtMs } = {}) {
  const rnd = prng(seed * 1_000_003 + i);
  const mode = SEED_MODES[Math.floor(rnd() * SEED_MODES.length)];
  const n = SEED_N[Math.floor(rnd() * SEED_N.length)];
  const fleet = [...FLEET];
  const proxies = [];
  for (let k = 0; k < n; k++) proxies.push(fleet.splice(Math.floor(rnd() * fleet.length), 1)[0]);
  const rates = proxies.map((p) => p.rateBps);
  const objectBytes = chunkBytes(rnd);
  const window = weighted(rnd, WINDOWS);
  const g = mode === 'coded' ? weighted(rnd, GENERATIONS) : null;
  const every = mode === 'parallel-http' ? null : weighted(rnd, FEEDBACK_EVERY);
  const loss = weighted(rnd, LOSS);
  const sum = rates.reduce((a, b) => a + b, 0);
  const fastest = Math.max(...rates);
  // Small chunks never reach full speed (congestion control start-up, FIGURE 12).
  const rampUp = objectBytes / (objectBytes + 200 * 1024);
  // Normalized goodput and throughput per mode (FIGURE 11 shapes): HTTP fetches everything from every
  // proxy, MUTP wastes a little on duplicates, RLNC less; WebRTC's throughput is lower than TCP's.
  let normalized; let throughput;
  if (mode === 'parallel-http') {
    throughput = sum * 0.95 * (1 - 4 * loss);
    normalized = Math.min(1, (fastest / sum) * 1.02);
  } else {
    const wFactor = Math.min(1, 0.8 + window / 2400);
    normalized = mode === 'coded' ? 0.93 * wFactor : (0.97 - 0.06 * (n - 1)) * wFactor;
    throughput = sum * (mode === 'coded' ? 0.62 : 0.66) * (1 - loss);
  }
  normalized = Math.min(1, Math.max(0.05, normalized * noise(rnd, 0.06)));
  throughput = Math.max(10 * 1024, throughput * rampUp * noise(rnd, 0.25));
  const failed = rnd() < ERROR_SHARE;
  const netBytes = failed ? Math.floor(objectBytes * rnd()) : objectBytes;
  const grossBytes = Math.max(netBytes, Math.round(netBytes / normalized));
  const firstPacketMs = 25 + rnd() * 120;
  const durationMs = Math.min(86_400_000, firstPacketMs + (grossBytes / throughput) * 1000);
  const share = rates.map((r) => r / sum);
  const record = {
    id: uuid(rnd),
    clientId: `client-${Math.floor(rnd() * 25)}`,
    startedAt: new Date(startedAtMs ?? CAMPAIGN_START_MS + Math.floor((i * 7919 % 1_000_003) / 1_000_003 * CAMPAIGN_MS)).toISOString(),
    mode, n, proxyIds: proxies.map((p) => p.id),
    url: `https://r${1 + (i % 8)}.googlevideo.com/videoplayback?itag=248&range=0-${objectBytes - 1}`,
    objectBytes,
    params: { window, generationSize: g, feedbackEvery: every, payloadSize: mode === 'parallel-http' ? null : PAYLOAD_BYTES, surplus: mode === 'coded' ? 0.05 : null },
    grossBytes, netBytes, durationMs: Math.round(durationMs * 10) / 10,
    firstPacketMs: Math.round(firstPacketMs * 10) / 10,
    serverFetchMs: Math.round((15 + rnd() * 80) * 10) / 10,
    packets: mode === 'parallel-http' ? n : Math.ceil(grossBytes / PAYLOAD_BYTES),
    duplicates: mode === 'parallel-http' ? null : Math.ceil((grossBytes - netBytes) / PAYLOAD_BYTES),
    lossEstimate: mode === 'parallel-http' ? null : loss,
    perProxy: proxies.map((p, k) => ({
      proxyId: p.id, bytes: Math.round(grossBytes * share[k]), packets: mode === 'parallel-http' ? 1 : Math.round((grossBytes * share[k]) / PAYLOAD_BYTES),
      duplicates: null, uploadRateBps: p.rateBps, error: null,
    })),
    packetLog: null, feedbackLog: null,
    error: failed ? { code: ['ERR_ALL_PROXIES_FAILED', 'ERR_TIMEOUT', 'ERR_PEER_GONE'][Math.floor(rnd() * 3)], message: 'synthetic failure' } : null,
  };
  if (withPacketLog && mode !== 'parallel-http' && !failed) {
    const { log, feedback } = packetTimeline(rnd, { mode, rates, netBytes, g: g ?? 24, every: every ?? 8, loss });
    // Stretch the simulated times onto the record's own first-packet → end span, so the timeline agrees with durationMs.
    const t0 = log[0]?.[0] ?? 0;
    const span = Math.max(1e-9, (log[log.length - 1]?.[0] ?? 0) - t0);
    const at = (/** @type {number} */ t) => Math.round((record.firstPacketMs + ((t - t0) / span) * (record.durationMs - record.firstPacketMs)) * 100) / 100;
    for (const p of log) p[0] = at(p[0]);
    record.packetLog = log;
    record.feedbackLog = feedback.map(at);
  }
  return record;
}
