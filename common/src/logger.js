// One logger and one line format for every server and tool:
//   2026-01-01T00:00:00.000Z [origo] WARN proxy refused {"proxyId":"p1"}
// (time, [name], level, message, then the fields as JSON when there are any).

/**
 * @typedef {{ info: (msg: string, fields?: object) => void,
 *             warn: (msg: string, fields?: object) => void,
 *             error: (msg: string, fields?: object) => void }} Logger
 */

/**
 * @param {{ name?: string, stream?: { write: (text: string) => unknown } }} [opts]
 *   stream: where lines go (stderr in Node; without one, console.error)
 * @returns {Logger}
 */
export function createLogger({ name = 'mutp', stream = globalThis.process?.stderr } = {}) {
  /** @param {string} text */
  const write = stream ? (text) => stream.write(`${text}\n`) : (text) => console.error(text);
  /** @param {string} level */
  const line = (level) => (/** @type {string} */ msg, /** @type {object | undefined} */ fields) => {
    const tail = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    write(`${new Date().toISOString()} [${name}] ${level} ${msg}${tail}`);
  };
  return { info: line('INFO'), warn: line('WARN'), error: line('ERROR') };
}
