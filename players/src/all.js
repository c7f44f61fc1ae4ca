// Everything a page needs, for the browser bundle (build/bundle.js).
export { createFleet } from './fleet.js';
export { fleetHlsConfig } from './hls.js';
export { registerFleetScheme } from './shaka.js';
export { fleetDashLoader } from './dash.js';
