// A test site's HTTP(S) server: its URL, host:port (the port left out when it is the scheme's
// default), and a close that ends kept-alive connections.

/**
 * @param {import('node:http').Server} server
 * @param {string} host  listen address
 * @param {{ port?: number, tls?: boolean, name?: string }} [o]  port 0: an ephemeral one; name: the host in the URL (default: the address)
 */
export async function listenLocal(server, host, { port: listenPort = 0, tls = false, name = host } = {}) {
  await new Promise((resolve) => server.listen(listenPort, host, () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const authority = port === (tls ? 443 : 80) ? name : `${name}:${port}`;
  return {
    url: `${tls ? 'https' : 'http'}://${authority}`,
    host: authority,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)); }),
  };
}
