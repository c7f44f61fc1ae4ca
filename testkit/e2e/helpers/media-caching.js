// The caching fields the test sites send with media: stale at once for the browser (no validator,
// so each load's direct fetches are real), fresh for an hour for shared caches such as the
// proxies, as a CDN's segments are.
export const MEDIA_CACHE_CONTROL = 'max-age=0, s-maxage=3600';
