// A minimal raw HTTP/1.1 client over a TCP socket: fuzzed bytes go to the server as they are
// (Node's own http client would refuse odd header bytes before they reach the server).
import { connect } from 'node:net';
import { codedError } from '@mutp/common/errors';

const RAW_HTTP_TIMEOUT_MS = 4000; // below the harness's per-input limit, so a hang is reported with its cause
const MAX_RESPONSE_BYTES = 4 << 20; // a reply bigger than this is a fault of its own (and would cost memory here)

/**
 * Sends `head` (request line + headers, CRLF-separated, without the blank line) and `body`.
 * @param {number} port @param {string | Buffer} head @param {Buffer} [body]
 * @returns {Promise<{status: number, headers: string, body: Buffer}>}  status 0: the server closed without an answer
 */
export function rawRequest(port, head, body = Buffer.alloc(0)) {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks = [];
    let size = 0;
    const timer = setTimeout(() => { sock.destroy(); reject(codedError('ERR_FUZZ_HANG', `no full HTTP answer within ${RAW_HTTP_TIMEOUT_MS} ms`)); }, RAW_HTTP_TIMEOUT_MS);
    sock.on('data', (d) => { size += d.length; if (size > MAX_RESPONSE_BYTES) sock.destroy(); else chunks.push(d); });
    sock.on('error', () => {}); // ECONNRESET after a refusal is an answer too; judged on what arrived
    sock.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const headText = (end < 0 ? all : all.subarray(0, end)).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(headText);
      resolve({ status: m ? Number(m[1]) : 0, headers: headText, body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4) });
    });
    sock.on('connect', () => {
      // write, not end: a half-closed socket makes Node drop the reply of an async handler
      sock.write(Buffer.concat([Buffer.from(head), Buffer.from(`\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n`), body]));
    });
  });
}
