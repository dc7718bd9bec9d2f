"""uvicorn's sans-I/O websocket protocol with one addition: once the app has accepted a connection through
Starlette, as any route does, it may ``attach`` to the protocol and then writes frames straight to the socket and
gets each incoming message as a call, with no ASGI message, queue or task switch on the way (server/hub.py's
``Wire``). The handshake, pings and the close handshake stay uvicorn's."""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.hub import CLOSE_INTERNAL, SocketConnection

MAX_BATCH = 64  # messages per frame at most
WIRE = "mttsim.wire"  # the scope extension through which the app reaches the protocol
logger = logging.getLogger("mttsim.server")


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame (RFC 6455 5.2), as a server sends it."""
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 65536:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol, which an accepted connection's app may ``attach`` to (see the module)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # uvicorn passes its own arguments through
        self._on_message: Callable[[bytes], None] | None = None
        self._on_lost: Callable[[], None] | None = None
        self._on_writable: Callable[[], None] | None = None

    def handle_connect(self, event: object) -> None:
        super().handle_connect(event)  # type: ignore[arg-type]  # the sans-I/O Request event, untyped here
        scope = getattr(self, "scope", None)
        if scope is not None:  # the ASGI task is created, not yet started: it will see this
            scope["extensions"][WIRE] = self

    def attach(self, on_message: Callable[[bytes], None], on_lost: Callable[[], None],
               on_writable: Callable[[], None]) -> None:
        """From now on, each message goes to ``on_message`` instead of the ASGI app's ``receive``."""
        self._on_message, self._on_lost, self._on_writable = on_message, on_lost, on_writable

    @property
    def paused(self) -> bool:
        """The socket's buffer is over its high-water mark: the peer is not reading."""
        return not self.writable.is_set()

    def write_lines(self, messages: list[bytes]) -> bool:
        """The messages, one per line, ``MAX_BATCH`` a text frame, written now; False once the connection is
        closing.
        """
        if self.close_sent or self.disconnected or self.transport.is_closing():
            return False
        if len(messages) <= MAX_BATCH:
            self.transport.write(text_frame(b"\n".join(messages)))
        else:
            self.transport.writelines([text_frame(b"\n".join(messages[start:start + MAX_BATCH]))
                                       for start in range(0, len(messages), MAX_BATCH)])
        return True

    def send_receive_event_to_app(self) -> None:
        if self._on_message is None or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        try:
            self._on_message(data)
        except Exception:  # a bug in handling one message closes that connection, never the server
            logger.exception("a websocket message could not be handled")
            self.conn.fail(CLOSE_INTERNAL, "internal error")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.transport.close()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._on_writable is not None:
            self._on_writable()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self._on_lost is not None:
            self._on_lost()


def wire_of(websocket: WebSocket) -> WebSocketProtocol:
    """The protocol an accepted websocket's connection writes through (server/hub.py)."""
    wire: WebSocketProtocol | None = websocket.scope["extensions"].get(WIRE)
    if wire is None:
        raise RuntimeError("run the app under uvicorn with server.api.app.uvicorn_websockets() (mttsim serve does)")
    return wire


async def serve(connection: SocketConnection, wire: WebSocketProtocol, heard: Callable[[bytes], None],
                left: Callable[[], None]) -> None:
    """The one websocket session's shell, of a tournament's socket, the lobby's and a gateway's: each message to
    ``heard`` until either side closes, then ``left``, then the outbox stops."""
    wire.attach(heard, connection.lost, connection.flush)
    try:
        await connection.ended
    finally:
        left()
        await connection.stop()
