// window.postMessage tag between the MAIN-world script, the bridge and the frame.
export const TAG = '__mutp_v1';
