// The DuckDB store on a thread of its own (threaded-store.js starts it): each call from Origo's
// thread comes as {id, method, args} and is answered with {id, value} or {id, error}, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { openDuckDbStore } from './duckdb-store.js';
import { STORE_METHODS } from './store-interface.js';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
/** An error as it crosses to Origo's thread: its code (null: it had none, as DuckDB's own) and message. @param {any} err */
const errorOf = (err) => ({ code: typeof err?.code === 'string' ? err.code : null, message: String(err?.message ?? err) });

try {
  const store = await openDuckDbStore({ path: workerData.path });
  port.on('message', async (/** @type {{id: number, method: string, args: unknown[]}} */ m) => {
    if (!STORE_METHODS.includes(/** @type {any} */ (m.method))) {
      port.postMessage({ id: m.id, error: { code: null, message: `no store method ${m.method}` } });
      return;
    }
    try {
      port.postMessage({ id: m.id, value: await /** @type {any} */ (store)[m.method](...m.args) });
    } catch (err) {
      port.postMessage({ id: m.id, error: errorOf(err) });
    }
  });
  port.postMessage({ ready: true });
} catch (err) {
  port.postMessage({ ready: false, error: errorOf(err) });
}
