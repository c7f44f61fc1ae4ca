// URL patterns for requests always served through the fleet, e.g. `*.cdn.example.com/videos/*`
// or `127.0.0.1:8123/videoplayback`: [scheme://]host[:port]/path, where the host may start with
// `*.` (any subdomain or none) and `*` in the path matches any characters except `?` and `#`.
// A pattern with no port matches any port; the query string is never part of the match.

const MAX_PATTERN_CHARS = 512; // a host and a path, not a document

/** @param {string} s */
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * @param {unknown} p
 * @returns {string | null} why the pattern is invalid, or null
 */
export function patternError(p) {
  if (typeof p !== 'string' || p.length === 0 || p.length > MAX_PATTERN_CHARS) return `must be 1..${MAX_PATTERN_CHARS} characters`;
  return parts(p) ? null : 'expected [scheme://]host[:port]/path';
}

/** @param {string} p */
function parts(p) {
  const m = /^(?:(https?|\*):\/\/)?((?:\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?(\/[^?#\s]*)$/.exec(p.trim());
  if (!m) return null;
  return { scheme: m[1] ?? '*', host: m[2], port: m[3] ?? null, path: m[4] };
}

/**
 * Compile patterns into one matcher over absolute URLs.
 * @param {string[]} patterns   already validated (invalid ones are skipped)
 * @returns {(url: string) => boolean}
 */
export function compilePatterns(patterns) {
  const res = [];
  for (const p of patterns) {
    const x = parts(p);
    if (!x) continue;
    const scheme = x.scheme === '*' ? 'https?' : x.scheme;
    const host = x.host.startsWith('*.') ? `(?:[^/?#@:]+\\.)?${escapeRe(x.host.slice(2))}` : escapeRe(x.host);
    const port = x.port ? `:${x.port}` : '(?::\\d+)?';
    const path = x.path.split('*').map(escapeRe).join('[^?#]*');
    res.push(new RegExp(`^${scheme}://${host}${port}${path}(?:[?#]|$)`, 'i'));
  }
  return (url) => res.some((re) => re.test(url));
}
