// A test site's HTTP server on an ephemeral port: its URL, host:port, and a close that ends kept-alive connections.

/**
 * @param {import('node:http').Server} server
 * @param {string} host
 */
export async function listenLocal(server, host) {
  await new Promise((resolve) => server.listen(0, host, () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return {
    url: `http://${host}:${port}`,
    host: `${host}:${port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)); }),
  };
}
