// Every child the cost bench started, so each one is stopped on every way out: the normal end,
// an error, Ctrl-C. Stops in the order given (the client first, then the proxies, Origo last, so
// none loses its peer while it shuts down), then removes what they left (e.g. Origo's database).
const STOP_GRACE_MS = 5000; // SIGTERM lets a proxy or Origo close cleanly; a bench does not wait longer

/** @typedef {{name: string, child: import('node:child_process').ChildProcess, order: number}} Member */

export function createProcessGroup() {
  /** @type {Member[]} */
  const members = [];
  /** @type {(() => void)[]} */
  const cleanups = [];
  const cleanUp = () => {
    for (const f of cleanups.splice(0)) f();
  };
  const running = (/** @type {Member} */ m) => m.child.exitCode === null && m.child.signalCode === null;
  return {
    /**
     * @param {string} name
     * @param {import('node:child_process').ChildProcess} child
     * @param {number} order  lower stops first
     */
    add(name, child, order) {
      members.push({ name, child, order });
      return child;
    },
    /** Runs once every child is stopped (synchronous, so killNow() can run it too). @param {() => void} f */
    addCleanup(f) {
      cleanups.push(f);
    },
    /** SIGTERM each group in order, SIGKILL whatever is left after STOP_GRACE_MS. */
    async stop() {
      const orders = [...new Set(members.map((m) => m.order))].sort((a, b) => a - b);
      for (const order of orders) {
        await Promise.all(members.filter((m) => m.order === order && running(m)).map(async (m) => {
          const exited = new Promise((resolve) => m.child.once('exit', resolve));
          m.child.kill('SIGTERM');
          const timer = setTimeout(() => m.child.kill('SIGKILL'), STOP_GRACE_MS);
          await exited;
          clearTimeout(timer);
        }));
      }
      cleanUp();
    },
    /** SIGKILL every child still running, at once (synchronous: for process.on('exit')). */
    killNow() {
      for (const m of members) if (running(m)) m.child.kill('SIGKILL');
      cleanUp();
    },
  };
}
