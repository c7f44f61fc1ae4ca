// window.postMessage tag between the MAIN-world script, the bridge and the frame.
export const TAG = '__mutp_v1';
export const FLEET_HOST_KEY = '__mutpFleetHost'; // the fleet host's window property (and attach message key) a frame looks for
export const BACKGROUND_BATCH_MAX = 50; // messages in one frame → background batch (records are ~6 KB each); the background reads no more
