// The DuckDB store on a worker thread, behind the same Store methods. DuckDB's Node bindings do
// part of each call on the calling thread (the appender's flush is synchronous): one download's
// records (a client record and four proxy records) held Origo's event loop ~6.5 ms once warm,
// 6–22 ms in a fresh process, and with it every ticket, proxy list and socket.io message, and the
// proxies that `npm start` runs on the same thread. Here only the records' copy to the thread
// is Origo's.
import { Worker } from 'node:worker_threads';
import { codedError } from '@mutp/common/errors';
import { STORE_METHODS } from './store-interface.js';

const THREAD = new URL('./duckdb-thread.js', import.meta.url);

/**
 * Opens (creating if needed) a DuckDB database file, or `:memory:`, on a thread of its own.
 * @param {{ path?: string }} [opts]
 * @returns {Promise<import('./store-interface.js').Store & { path: string }>}
 */
export async function openDuckDbStoreOnThread({ path = ':memory:' } = {}) {
  const worker = new Worker(THREAD, { workerData: { path } });
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} calls waiting for their answer */
  const waiting = new Map();
  let nextId = 0;
  /** @type {Error | null} why the thread cannot answer any more */
  let gone = null;
  // an idle store does not hold the process (unref once each answer is in); a call waiting for its answer does
  const settle = (/** @type {number} */ id) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
    return w;
  };
  const fail = (/** @type {Error} */ err) => {
    gone ??= err;
    for (const id of [...waiting.keys()]) settle(id)?.reject(gone);
  };

  await new Promise((resolve, reject) => {
    worker.ref();
    worker.once('message', (m) => {
      worker.unref();
      if (m?.ready) resolve(undefined);
      else reject(codedError(m?.error?.code ?? 'ERR_STORE_OPEN', m?.error?.message ?? `cannot open database ${path}`));
    });
    worker.once('error', (err) => reject(codedError('ERR_STORE_OPEN', `cannot open database ${path}: ${err.message}`, { cause: err })));
    worker.once('exit', (code) => reject(codedError('ERR_STORE_OPEN', `cannot open database ${path}: its thread exited (${code})`)));
  });
  worker.on('message', (/** @type {{id: number, value?: unknown, error?: {code: string | null, message: string}}} */ m) => {
    const w = settle(m.id);
    if (!w) return;
    if (m.error) w.reject(m.error.code ? codedError(m.error.code, m.error.message) : new Error(m.error.message));
    else w.resolve(m.value);
  });
  worker.on('error', (err) => fail(codedError('ERR_STORE_THREAD', `the log store's thread failed: ${err.message}`, { cause: err })));
  worker.on('exit', (code) => fail(codedError('ERR_STORE_THREAD', `the log store's thread exited (${code})`)));

  /** @param {string} method @param {unknown[]} args */
  const call = (method, args) => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, method, args });
    });
  };
  let closing = /** @type {Promise<void> | null} */ (null);
  const store = /** @type {any} */ ({ path });
  for (const method of STORE_METHODS) if (method !== 'close') store[method] = (/** @type {unknown[]} */ ...args) => call(method, args);
  /** Waits for pending writes, checkpoints and releases the file, then ends the thread. Safe to call twice. */
  store.close = () => (closing ??= (async () => {
    try {
      if (!gone) await call('close', []);
    } finally {
      gone ??= codedError('ERR_STORE_CLOSED', 'the store is closed');
      await worker.terminate();
    }
  })());
  return store;
}
