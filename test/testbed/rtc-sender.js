// The proxy side of the namespace WebRTC tests: a process in a namespace that serves POST
// /rtc/offer with the proxy's own signalling and WebRTC build selection (proxy/src/rtc), and runs
// `onMessage` (a script fragment with `channel` and `ev` in scope) for each message on the
// channel. Resolves once it listens, with the build it loaded (GET /rtc/build's JSON).
import { spawn } from 'node:child_process';

/** Lifetime of the sender process (ms): longer than any test using it. */
const SENDER_MAX_LIFE_MS = 120_000;

const url = (/** @type {string} */ spec) => import.meta.resolve(spec);

/**
 * @param {{ ns: string, ip: string, port: number, onMessage: string, env?: Record<string, string> }} o
 * @returns {Promise<{ proc: import('node:child_process').ChildProcess, build: any }>}
 */
export async function startRtcSender({ ns, ip, port, onMessage, env = {} }) {
  const script = `
const [signallingUrl, wrtcUrl, expressUrl, ip, port] = process.argv.slice(1);
const { createSignalling } = await import(signallingUrl);
const { loadWrtc } = await import(wrtcUrl);
const express = (await import(expressUrl)).default;
const { RTCPeerConnection, build } = await loadWrtc();
const silent = { info() {}, warn() {}, error() {} };
const sig = createSignalling({ RTCPeerConnection, rtcConfig: { bindAddress: ip }, logger: silent,
  onChannel: (channel) => {
    channel.addEventListener('message', (ev) => { ${onMessage} });
    return { stop() {} };
  } });
const app = express();
app.use(sig.router);
app.listen(Number(port), ip, () => console.log(JSON.stringify(build)));
setTimeout(() => process.exit(0), ${SENDER_MAX_LIFE_MS});
`;
  const proc = spawn('ip', ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', script,
    url('@mutp/proxy/signalling'), url('@mutp/proxy/wrtc'), url('express'), ip, String(port)],
  { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += d));
  const build = await new Promise((resolve, reject) => {
    proc.stdout?.once('data', (d) => resolve(JSON.parse(String(d))));
    proc.once('close', (code) => reject(new Error(`sender exited ${code}: ${stderr}`)));
  });
  return { proc, build };
}
