"""A TCP proxy that adds a round trip's latency to any protocol (XRootD here), for the
benchmarks: each chunk of bytes is passed on half a round trip after it arrived, in order,
without limiting the bandwidth. It counts the client's sends (requests, roughly: a vector
read or an open is one send) and the client's sends made after an answer came, which is
the number of sequential round trips the client waited for."""

import asyncio
import threading


class LatencyProxy:
    """Listens on 127.0.0.1:`self.port` and forwards to 127.0.0.1:`target`, `rtt` seconds
    of round trip added; runs on an event loop of its own in a thread."""

    def __init__(self, target, rtt):
        self.target, self.rtt = target, rtt
        self.sends = 0
        self.round_trips = 0
        self._last_was_answer = True
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        ready.wait()

    def counts(self):
        """(client sends, sequential round trips) so far."""
        return self.sends, self.round_trips

    def _run(self, ready):
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._server = server
        ready.set()
        self._loop.run_forever()

    async def _serve(self, client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(self._pipe(client_reader, server_writer, True),
                             self._pipe(server_reader, client_writer, False), return_exceptions=True)

    async def _pipe(self, reader, writer, from_client):
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()

        async def send():
            while True:
                arrived, data = await queue.get()
                wait = arrived + self.rtt / 2 - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if data is None:
                    writer.close()
                    return
                writer.write(data)
                await writer.drain()

        sender = asyncio.create_task(send())
        try:
            while data := await reader.read(1 << 16):
                if from_client:
                    self.sends += 1
                    if self._last_was_answer:
                        self.round_trips += 1
                    self._last_was_answer = False
                else:
                    self._last_was_answer = True
                queue.put_nowait((loop.time(), data))
        except OSError:
            pass
        queue.put_nowait((loop.time(), None))
        await sender

    def stop(self):
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
