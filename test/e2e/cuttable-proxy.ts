import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on loopback to `host:port` whose link can be cut and restored: the fault
 * a test injects between a Keel worker and its database or Redis. Cut: every open
 * connection is destroyed and new ones are closed at once (the worker sees its
 * sessions die and reconnects fail). Restored: connections are piped again.
 */
export interface CuttableProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** The upstream URL with its host and port replaced by the proxy's. */
  urlFor(upstreamUrl: string): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(upstream: { host: string; port: number }): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let isCut = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  };
  const server: Server = createServer((client) => {
    track(client);
    if (isCut) {
      client.destroy();
      return;
    }
    const remote = connect(upstream.port, upstream.host);
    track(remote);
    client.pipe(remote);
    remote.pipe(client);
    client.once("close", () => remote.destroy());
    remote.once("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    port,
    urlFor: (upstreamUrl) => {
      const url = new URL(upstreamUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    cut: () => {
      isCut = true;
      cutAll();
    },
    restore: () => {
      isCut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        server.close(() => resolve());
      }),
  };
}
