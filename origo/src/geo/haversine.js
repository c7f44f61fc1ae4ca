/** Mean Earth radius, km (IUGG): the haversine formula assumes a sphere. */
const EARTH_RADIUS_KM = 6371.0088;

/** @param {number} deg */
const rad = (deg) => (deg * Math.PI) / 180;

/**
 * Great-circle distance between two points, km.
 * @param {{ lat: number, lon: number }} a
 * @param {{ lat: number, lon: number }} b
 * @returns {number}
 */
export function haversineKm(a, b) {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
