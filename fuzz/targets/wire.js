// Target: the MUTP data-channel wire format (protocol decodeMessage) and the state machines fed
// with whatever it accepts: receivers get data/coded/meta, senders get feedback.
import { createReceiver, createSender, decodeMessage } from '@mutp/protocol';
import { mutateBytes } from '../lib/mutate.js';

const DOWNLOAD_ID = 5; // the corpus messages carry this id, so mutants reach the state machines
const OBJECT_BYTES = 40_000; // ~37 packets: small, so receivers are cheap to rebuild
const MAX_META_RECEIVER_BYTES = 16 << 20; // a fuzzed meta may announce up to 1 GiB (the protocol's cap); do not allocate that per input

async function fresh() {
  const data = new Uint8Array(OBJECT_BYTES).map((_, i) => (i * 7) & 255);
  const peers = {};
  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    const sender = await createSender({ mode, data, sourceIndex: 0, sourceCount: 2, seed: 3, downloadId: DOWNLOAD_ID });
    const receiver = await createReceiver({ meta: sender.meta(), sourceCount: 2, now: 0 });
    peers[mode] = { sender, receiver };
  }
  return peers;
}

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'wire',
  what: 'protocol decodeMessage + senders.handleFeedback + receivers.handlePacket / createReceiver(meta)',
  ciIterations: 20000,
  timeoutMs: 1000,
  async setup() { return { peers: await fresh(), now: 1 }; },
  mutate: mutateBytes,
  async run(ctx, input, rng) {
    const r = decodeMessage(new Uint8Array(input));
    if (!r || typeof r.ok !== 'boolean') throw new Error('decodeMessage returned no verdict');
    if (!r.ok) {
      if (typeof r.error?.code !== 'string') throw new Error('refusal without an error code');
      return;
    }
    const msg = r.msg;
    const now = ctx.now++;
    for (const { sender, receiver } of Object.values(ctx.peers)) {
      if (msg.type === 'feedback') sender.handleFeedback(msg, now);
      else receiver.handlePacket(msg, rng.int(3), now); // source 2 does not exist: must be ignored
      receiver.pollFeedback(now);
      receiver.pollDelivered();
      sender.nextPacket(now);
    }
    if (msg.type === 'meta' && msg.totalSize <= MAX_META_RECEIVER_BYTES) {
      try {
        const rc = await createReceiver({ meta: msg, sourceCount: 1 + rng.int(4), now });
        rc.handlePacket(msg, 0, now);
        rc.close(); // frees its codec memory
      } catch (err) {
        if (typeof err?.code !== 'string') throw err; // a refusal must be a coded error, not a TypeError
      }
    }
  },
  async alive(ctx) {
    for (const p of Object.values(ctx.peers)) { p.sender.close(); p.receiver.close(); }
    ctx.peers = await fresh(); // bounded state: every ALIVE_CHECK_EVERY inputs start over
  },
  async teardown(ctx) {
    for (const p of Object.values(ctx.peers)) { p.sender.close(); p.receiver.close(); }
  },
};
