"""An HTTP proxy in front of a real server (nginx) that injects the faults real servers and
networks make, chosen by the first part of the path (`/<fault>/<file>`):

  pass      forwards as it is
  cut       the first reply for each file stops half-way through its body (connection closed)
  stall     the first request for each file gets no answer at all
  flaky     the first two requests of each path get `503 Service Unavailable`
  whole     the Range header is dropped: the server answers 200 with the whole file
  redirect  answers 302 to the same file under /pass/
  fewer     only the first range of a multi-range request is forwarded (a 206 of one part)

It counts requests and can add a delay before each reply (a round trip's latency):

    python fault_proxy.py UPSTREAM_PORT [--delay SECONDS]

prints `PORT <port>` when it listens on 127.0.0.1; `GET /_stats` answers the counts as JSON.
"""

import argparse
import asyncio
import json
import os
import sys
from collections import Counter

FAULTS = ("pass", "cut", "stall", "flaky", "whole", "redirect", "fewer")


class Proxy:
    def __init__(self, upstream, delay):
        self.upstream, self.delay = upstream, delay
        self.seen = Counter()  # (fault, path) -> requests so far
        self.requests = Counter()  # fault -> requests
        self.failed = Counter()  # path -> 503s sent

    async def handle(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = [tuple(line.split(":", 1)) for line in lines[1:] if ":" in line]
                if target == "/_stats":
                    body = json.dumps(self.requests).encode()
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                    await writer.drain()
                    continue
                fault, _, path = target.lstrip("/").partition("/")
                if fault not in FAULTS:
                    fault, path = "pass", target.lstrip("/")
                self.requests[fault] += 1
                if not await self.reply(writer, method, fault, "/" + path, headers):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def reply(self, writer, method, fault, path, headers):
        """Answers one request; False if the connection is to be closed."""
        rng = next((v.strip() for k, v in headers if k.strip().lower() == "range"), None)
        if os.environ.get("FAULT_PROXY_LOG"):
            print(fault, path, rng, file=sys.stderr, flush=True)
        self.seen[(fault, path)] += 1
        first = self.seen[(fault, path)] == 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if fault == "stall" and first:
            await asyncio.sleep(3600)
        if fault == "flaky" and self.failed[path] < 2:
            self.failed[path] += 1
            writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return True
        if fault == "redirect":
            writer.write(b"HTTP/1.1 302 Found\r\nLocation: /pass%s\r\nContent-Length: 0\r\n\r\n" % path.encode())
            await writer.drain()
            return True
        forwarded = [(k, v) for k, v in headers if k.strip().lower() not in ("range", "connection", "host")]
        if rng and fault != "whole":
            forwarded.append(("Range", " " + (rng.split(",")[0] if fault == "fewer" else rng)))
        status_line, reply_headers, body = await self.upstream_get(method, path, forwarded)
        if fault == "cut" and first and len(body) > 1:
            writer.write(self.head(status_line, reply_headers, len(body)) + body[: len(body) // 2])
            await writer.drain()
            return False
        writer.write(self.head(status_line, reply_headers, len(body)) + body)
        await writer.drain()
        return True

    @staticmethod
    def head(status_line, headers, length):
        kept = [(k, v) for k, v in headers if k.lower() not in ("content-length", "connection", "transfer-encoding")]
        lines = [status_line] + [f"{k}:{v}" for k, v in kept] + [f"Content-Length: {length}", "", ""]
        return "\r\n".join(lines).encode("latin-1")

    async def upstream_get(self, method, path, headers):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.upstream}", "Connection: close"]
        lines += [f"{k}:{v}" for k, v in headers]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        raw = await reader.read()
        writer.close()
        head, _, body = raw.partition(b"\r\n\r\n")
        head_lines = head.decode("latin-1").split("\r\n")
        headers = [tuple(line.split(":", 1)) for line in head_lines[1:] if ":" in line]
        return head_lines[0], headers, body


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("upstream", type=int)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    proxy = Proxy(args.upstream, args.delay)
    # Request headers up to 1 MiB: uproot's HTTPSource sends Range headers of 20 kB and more.
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0, limit=1 << 20)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
