#!/usr/bin/env python3
"""A TCP forwarder that counts what passes through it, and can add network delay.

Usage: tcp-proxy.py LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT [--delay-ms N] [--log FILE]
                    [--log-closes] [--drop-answer REGEX] [--stall-answer REGEX]

Every connection a client opens is forwarded to UPSTREAM over a connection of its own. With
--log, each accepted connection appends "connection N" to FILE, and each HTTP/1.x request line
the client sends on it (seen in plain HTTP only) appends "N METHOD TARGET", so a test can count
both the TCP connections and the requests of a process; with --log-closes too, "closed N" once
both directions of connection N have ended, so it can count those still open. With --delay-ms, every chunk is held
back N milliseconds in each direction before it is forwarded, the way a network path with a
round trip of 2*N ms behaves; a new connection also waits one round trip before its first
byte goes through, as a TCP handshake would. It prints "ready" once it listens.

Faults, each applied once, to the first plain-HTTP request whose "METHOD TARGET" matches REGEX
(re.search): --drop-answer forwards the request, so the server acts on it, then closes the
client's connection when the answer arrives instead of forwarding it (a server that dies after
doing the work, or a connection lost on the way back); --stall-answer forwards the request and
then neither forwards the answer nor closes the connection (a half-dead path).
"""
import argparse
import asyncio
import re

REQUEST_LINE = re.compile(rb"(?:^|\r\n)([A-Z]+) (/\S*) HTTP/1\.[01]\r\n")


class Recorder:
    def __init__(self, path, faults):
        self.file = open(path, "a", buffering=1) if path else None
        self.connections = 0
        self.log_closes = False
        # [(kind, pattern)], each removed once it has been applied.
        self.faults = faults

    def connection(self):
        self.connections += 1
        if self.file:
            self.file.write(f"connection {self.connections}\n")
        return self.connections

    def closed(self, number):
        if self.file and self.log_closes:
            self.file.write(f"closed {number}\n")

    def requests(self, number, data, link):
        for method, target in REQUEST_LINE.findall(data):
            line = f"{method.decode()} {target.decode()}"
            if self.file:
                self.file.write(f"{number} {line}\n")
            for fault in self.faults:
                if re.search(fault[1], line):
                    self.faults.remove(fault)
                    link.fault = fault[0]
                    break


class Link:
    """One client connection: the fault its answers get, if any."""
    fault = None


async def pump(reader, writer, delay, inspect=None, link=None, client_writer=None):
    loop = asyncio.get_running_loop()
    pending = []
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if inspect:
                inspect(data)
            if link and link.fault == "stall":
                continue
            if link and link.fault == "drop":
                client_writer.close()
                break
            if delay:
                due = loop.time() + delay
                # Chunks keep their order: each is written after the ones before it.
                pending.append(asyncio.ensure_future(deliver(writer, data, due, pending[-1] if pending else None)))
            else:
                writer.write(data)
                await writer.drain()
        for task in pending:
            await task
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def deliver(writer, data, due, previous):
    if previous:
        await previous
    wait = due - asyncio.get_running_loop().time()
    if wait > 0:
        await asyncio.sleep(wait)
    writer.write(data)
    await writer.drain()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("upstream_host")
    parser.add_argument("upstream_port", type=int)
    parser.add_argument("--delay-ms", type=float, default=0)
    parser.add_argument("--log")
    parser.add_argument("--log-closes", action="store_true")
    parser.add_argument("--drop-answer", action="append", default=[])
    parser.add_argument("--stall-answer", action="append", default=[])
    options = parser.parse_args()
    faults = [("drop", pattern) for pattern in options.drop_answer] + [("stall", pattern) for pattern in options.stall_answer]
    recorder = Recorder(options.log, faults)
    recorder.log_closes = options.log_closes
    delay = options.delay_ms / 1000

    async def serve(client_reader, client_writer):
        number = recorder.connection()
        link = Link()
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(options.upstream_host, options.upstream_port)
        except OSError:
            client_writer.close()
            return
        if delay:
            await asyncio.sleep(2 * delay)
        await asyncio.gather(
            pump(client_reader, upstream_writer, delay, lambda data: recorder.requests(number, data, link)),
            pump(upstream_reader, client_writer, delay, link=link, client_writer=client_writer),
        )
        recorder.closed(number)

    server = await asyncio.start_server(serve, "127.0.0.1", options.port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
