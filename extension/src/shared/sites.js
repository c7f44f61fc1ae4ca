// Site lists: the hosts of the pages where the extension detects segments (`listed-sites`) and
// the hosts where it never touches a request. A site is `host` or `*.host` (any subdomain or
// none), without scheme, port or path: what the popup's one click adds.

const MAX_SITE_CHARS = 253; // a DNS name

/** @param {unknown} s @returns {boolean} */
export function isSite(s) {
  return typeof s === 'string' && s.length > 0 && s.length <= MAX_SITE_CHARS && /^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(s);
}

/**
 * @param {string[]} sites
 * @param {string} hostname  the page's (lower case, as URL gives it)
 */
export function siteListed(sites, hostname) {
  const h = hostname.toLowerCase();
  return sites.some((s) => (s.startsWith('*.') ? h === s.slice(2) || h.endsWith(s.slice(1)) : h === s));
}

/**
 * What the extension does on a page of `hostname`: serve pattern matches, detect segments.
 * @param {import('./settings.js').Settings} s
 * @param {string} hostname
 * @returns {{patterns: boolean, detect: boolean, why: string}}
 */
export function activeOn(s, hostname) {
  if (!s.enabled) return { patterns: false, detect: false, why: 'the extension is off' };
  if (siteListed(s.denySites, hostname)) return { patterns: false, detect: false, why: 'this site is on the never list' };
  if (s.detect === 'off') return { patterns: true, detect: false, why: 'segment detection is off: only the URL patterns' };
  if (s.detect === 'listed-sites' && !siteListed(s.sites, hostname)) return { patterns: true, detect: false, why: 'this site is not on the site list: only the URL patterns' };
  return { patterns: true, detect: true, why: 'segments detected from manifests and URLs' };
}
