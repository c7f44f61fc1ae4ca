// A fleet for the integrations' tests: the test answers each segment itself.

export const tick = () => new Promise((r) => setImmediate(r));

/**
 * `jobs` holds each fetchSegment call with the functions that answer it; `direct` and `learnt`
 * the countDirect and learn calls.
 * @param {{rejectOnAbort?: boolean}} [o]  an aborted signal rejects the call with its reason, as the real fleet's does
 */
export function fakeFleet({ rejectOnAbort = false } = {}) {
  /** @type {{url: string, o: any, resolve: (v: any) => void, reject: (e: unknown) => void}[]} */
  const jobs = [];
  /** @type {unknown[][]} */
  const direct = [];
  /** @type {unknown[][]} */
  const learnt = [];
  let warmed = 0;
  const fleet = {
    fetchSegment: (/** @type {string} */ url, /** @type {any} */ o) => new Promise((resolve, reject) => {
      if (rejectOnAbort) o.signal?.addEventListener('abort', () => reject(o.signal.reason));
      jobs.push({ url, o, resolve, reject });
    }),
    countDirect: (/** @type {unknown[]} */ ...a) => { direct.push(a); },
    learn: (/** @type {unknown[]} */ ...a) => { learnt.push(a); },
    warm: () => { warmed += 1; },
  };
  return { fleet: /** @type {any} */ (fleet), jobs, direct, learnt, warmed: () => warmed };
}
