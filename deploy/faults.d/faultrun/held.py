"""Connections a client holds open while a part drains, as Tests/IntegrationTests/CleanStopTests.swift holds them: idle
after an answer, silent, half a head, half a body, and a reader that does not read its answers. The drain's check (the
part exits with status 0 within its drain timeout) is measured with them open: the test checks only that the part
exits with status 0, and the limit is measured here."""
import socket
import uuid

from .config import GATEWAY_PORT

# A route of each part that reads a request body (trends answers its POST without reading one).
BODY_PATHS = {"auth": "/api/auth/login", "gateway": "/api/auth/login", "meals": "/api/meals", "metrics": "/api/metrics/weight",
              "sharing": f"/api/share/meal/{uuid.uuid4()}", "foods": "/api/foods/products", "trends": "/api/trends"}


def hold(part, port, direct):
    """Opens the five kinds of held connection to `port` (the part's own, or the gateway's); returns the sockets, to be
    closed after the part exited. A kind that cannot be opened is skipped: the drain is measured with the others."""
    held = []
    identity = f"X-User-Id: {uuid.uuid4()}\r\n" if direct else ""
    live = b"GET /health/live HTTP/1.1\r\nHost: faults\r\n\r\n"

    def connect(receive_buffer=None):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
        held.append(s)
        return s

    try:
        idle = connect()
        idle.sendall(live)
        idle.recv(65536)
        connect()
        connect().sendall(b"GET /health/live HTTP/1.1\r\nHost: faults\r\n")
        path = BODY_PATHS.get(part if direct else "gateway", "/api/auth/login")
        connect().sendall((f"POST {path} HTTP/1.1\r\nHost: faults\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n"
                           f"{identity}\r\n{{\"date\": ").encode())
        # Enough requests that the part's answers fill this socket's 4 KB and the part's own send buffer, so it holds
        # answers it cannot write: a few of the gateway's long /openapi.json, a thousand short /health/live elsewhere.
        # Not more: answering tens of thousands would be work enough to delay the drain's other clients on a small
        # machine, and the in-flight check is about the drain, not about that load.
        reader = connect(receive_buffer=4096)
        reader.setblocking(False)
        ask, count = (b"GET /openapi.json HTTP/1.1\r\nHost: faults\r\n\r\n", 50) if port == GATEWAY_PORT else (live, 1_000)
        for _ in range(count):
            try:
                reader.send(ask)
            except BlockingIOError:
                break
    except OSError:
        pass
    return held


def release(held):
    for s in held:
        try:
            s.close()
        except OSError:
            pass
