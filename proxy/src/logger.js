/**
 * @typedef {{ info: (msg: string, fields?: object) => void,
 *             warn: (msg: string, fields?: object) => void,
 *             error: (msg: string, fields?: object) => void }} Logger
 */

/**
 * One line per event on stderr: `time level [proxy id] message {fields}`.
 * @param {string} name
 * @param {NodeJS.WritableStream} [out]
 * @returns {Logger}
 */
export function createLogger(name, out = process.stderr) {
  /** @param {string} level */
  const line = (level) => (/** @type {string} */ msg, /** @type {object} */ fields) => {
    const tail = fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : '';
    out.write(`${new Date().toISOString()} ${level} [${name}] ${msg}${tail}\n`);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/** @type {Logger} */
export const silentLogger = { info() {}, warn() {}, error() {} };
