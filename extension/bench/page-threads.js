// How busy a page's threads were, from a Chromium trace of its load (bench:players --threads):
// the page's main thread, on which the player parses, transmuxes and appends, and the busiest
// other thread of its renderer (the plugins' fleet worker, when it runs one). Busy = the summed
// length of the thread's top-level tasks, from the page's navigation to the trace's end.

/** The trace categories this needs: the scheduler's tasks and the frames' commits. */
export const THREAD_TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel'];
const TASK_EVENTS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/**
 * @param {any[]} events  the trace's traceEvents
 * @param {string} pageUrl  the URL the page was navigated to
 * @returns {{mainMs: number, otherMs: number, otherName: string | null} | null}  null: the page's renderer is not in the trace
 */
export function pageThreadBusy(events, pageUrl) {
  const commit = events.filter((e) => e.name === 'FrameCommittedInBrowser' && typeof e.args?.data?.url === 'string' && e.args.data.url.startsWith(pageUrl.split('#')[0])).at(-1);
  const pid = commit?.args?.data?.processId;
  if (!Number.isInteger(pid)) return null;
  /** @type {Map<number, string>} */
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name' && e.pid === pid) names.set(e.tid, String(e.args?.name ?? ''));
  const main = [...names].find(([, name]) => name === 'CrRendererMain')?.[0];
  if (main === undefined) return null;
  const from = events.find((e) => e.name === 'navigationStart' && e.pid === pid)?.ts ?? commit.ts;
  /** @type {Map<number, number>} µs per thread */
  const busy = new Map();
  /** @type {Map<number, number>} where each thread's last counted task ended: a task run inside it is not counted again */
  const endOf = new Map();
  const tasks = events.filter((e) => e.pid === pid && e.ph === 'X' && TASK_EVENTS.has(e.name) && e.ts >= from && Number.isFinite(e.dur)).sort((a, b) => a.ts - b.ts);
  for (const e of tasks) {
    if (e.ts < (endOf.get(e.tid) ?? -Infinity)) continue;
    endOf.set(e.tid, e.ts + e.dur);
    busy.set(e.tid, (busy.get(e.tid) ?? 0) + e.dur);
  }
  let other = null;
  for (const [tid, us] of busy) if (tid !== main && (other === null || us > /** @type {number} */ (busy.get(other)))) other = tid;
  return {
    mainMs: (busy.get(main) ?? 0) / 1000,
    otherMs: other === null ? 0 : /** @type {number} */ (busy.get(other)) / 1000,
    otherName: other === null ? null : names.get(other) ?? null,
  };
}
