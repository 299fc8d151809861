// An HTTP CONNECT proxy that tunnels chatgpt.com:443 to the fake server and refuses every other host, so a browser
// without host-resolver rules (Firefox) reaches the fake at https://chatgpt.com and nothing else (docs/e2e.md).
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export class ConnectProxy {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, hosts: readonly string[] = ["chatgpt.com"]): Promise<ConnectProxy> {
    const server = createServer((_req, res) => res.writeHead(403).end());
    const holder: { proxy?: ConnectProxy } = {};
    server.on("connect", (req, client: Socket) => {
      const [host, port] = (req.url ?? "").split(":");
      if (!host || !hosts.includes(host) || port !== "443") {
        client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
        return;
      }
      const upstream = connect(targetPort, "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        holder.proxy?.sockets.add(s);
        s.on("close", () => holder.proxy?.sockets.delete(s));
        s.on("error", () => s.destroy());
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    holder.proxy = new ConnectProxy(server, (server.address() as AddressInfo).port);
    return holder.proxy;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
