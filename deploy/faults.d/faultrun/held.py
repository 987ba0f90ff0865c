"""Connections a client holds open while a part drains, as Tests/IntegrationTests/CleanStopTests.swift holds them: idle
after an answer, silent, half a head, half a body, and a reader that does not read its answers. The drain's check (the
part exits with status 0 within its drain timeout) is measured with them open: the test checks only that the part
exits with status 0, and the limit is measured here."""
import socket
import uuid

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
        reader = connect(receive_buffer=4096)
        reader.setblocking(False)
        for _ in range(100_000):
            try:
                reader.send(live)
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
