// Every fuzz target, in the order `npm run fuzz` runs them.
import wire from './wire.js';
import extension from './extension.js';
import fetchTarget from './fetch.js';
import signalling from './signalling.js';
import apiLogs from './api-logs.js';
import socketio from './socketio.js';

/** @type {import('../lib/harness.js').FuzzTarget[]} */
export const TARGETS = [wire, extension, fetchTarget, signalling, apiLogs, socketio];
