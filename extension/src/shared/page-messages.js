// window.postMessage tag between the MAIN-world script, the bridge and the frame.
export const TAG = '__mutp_v1';
export const FLEET_HOST_KEY = '__mutpFleetHost'; // the fleet host's window property (and attach message key) a frame looks for
