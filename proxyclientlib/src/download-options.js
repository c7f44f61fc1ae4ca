// What a download may be asked for: its mode, how many proxies, a byte range. Checked where it
// is asked (the CLI's arguments, the client's options); a light module, so the CLI reads it
// before the client and its transfer modes load.
import { codedError } from '@mutp/common/errors';

export const MODES = /** @type {const} */ (['coded', 'uncoded', 'parallel-http', 'range-http']);
export const DEFAULT_PROXIES = 4; // paper V: N = 4 is where both MUTP protocols beat Parallel HTTP
/** Extra proxies asked of Origo per download (count): a source whose proxy refuses (503 ERR_PROXY_BUSY) moves to one. */
export const SPARE_PROXIES = 4;

/** How many proxies to ask Origo for when a download wants `proxies` of them: those and the spares. @param {number} proxies */
export const proxiesToList = (proxies) => proxies + SPARE_PROXIES;

/**
 * @param {{start: number, end: number} | string | null | undefined} r  end inclusive
 * @returns {{start: number, end: number} | null}
 */
export function parseRange(r) {
  if (r == null) return null;
  let start;
  let end;
  if (typeof r === 'string') {
    const m = /^(\d{1,15})-(\d{1,15})$/.exec(r.trim());
    if (!m) throw codedError('ERR_BAD_RANGE', `range must look like "start-end" (inclusive): ${r}`);
    start = Number(m[1]);
    end = Number(m[2]);
  } else {
    ({ start, end } = r);
  }
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw codedError('ERR_BAD_RANGE', `bad range ${JSON.stringify(r)}: need 0 <= start <= end`);
  }
  return { start, end };
}
