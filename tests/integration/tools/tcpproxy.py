#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcpproxy.py: a TCP relay standing in for glusterd as a volfile server in the fault tests.

  tcpproxy.py LISTEN_PORT TARGET_HOST TARGET_PORT [PORTFILE]

Accepts on 127.0.0.1:LISTEN_PORT (0: any free port, written to PORTFILE) and relays every
connection to TARGET_HOST:TARGET_PORT. Killing it (and starting it again on the same port) is,
for a client that fetched its volfile through it, what a glusterd restart is: the management
connection drops and comes back. Runs until killed.
"""
import socket
import sys
import threading


def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    port, host, tport = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(64)
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as f:
            f.write("%d\n" % ls.getsockname()[1])
    while True:
        c, _ = ls.accept()
        try:
            u = socket.create_connection((host, tport))
        except OSError:
            c.close()
            continue
        for a, b in ((c, u), (u, c)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main()
