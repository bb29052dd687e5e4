// Preload for @modelcontextprotocol/server-everything: it binds every interface, so pin its listen() to
// the host in ERAWATCH_PEER_HOST (default 127.0.0.1) and print {"port":N} once it listens.
const http = require('node:http');
const host = process.env.ERAWATCH_PEER_HOST || '127.0.0.1';
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function patchedListen(...args) {
  const port = typeof args[0] === 'number' || typeof args[0] === 'string' ? Number(args[0]) : 0;
  const callback = args.find((a) => typeof a === 'function');
  this.once('listening', () => {
    const address = this.address();
    process.stdout.write(
      JSON.stringify({ port: address && typeof address === 'object' ? address.port : null }) + '\n',
    );
  });
  return listen.call(this, port, host, callback);
};
