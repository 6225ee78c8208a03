#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""statvol.py: a client volfile that counts what DHT sends to each of its subvolumes.

  statvol.py IN OUT
      IN is a client volfile as glusterd hands it out (`gluster system:: getspec VOL`). OUT
      gets the same graph with a debug/io-stats xlator (fop counting on) between the
      cluster/distribute xlator and each of its children, and without the top-level
      debug/io-stats, so that `setfattr -n trusted.io-stats-dump -v NAME MOUNT` on a FUSE
      mount of OUT goes through DHT, which winds a directory's setxattr to every child, and
      each inserted io-stats writes its own counts to <run dir>/NAME.<its xlator name>.
      Prints the inserted xlators' names, one a line, in DHT order.
      Exit 1 with a message when the graph is not as expected (no, or more than one, DHT).
"""
import sys

SUFFIX = "-lpcstats"


def die(msg):
    print("statvol.py: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(text):
    """The volume blocks, in order: dicts with name, type, subvolumes, and their lines."""
    blocks, cur = [], None
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            if cur is not None:
                cur["lines"].append(line)
            continue
        if words[0] == "volume":
            if cur is not None or len(words) != 2:
                die("line %d: unexpected '%s'" % (n, line.strip()))
            cur = {"name": words[1], "type": None, "subvolumes": [], "lines": [line]}
        elif cur is None:
            die("line %d: '%s' outside a volume block" % (n, line.strip()))
        elif words[0] == "end-volume":
            cur["lines"].append(line)
            blocks.append(cur)
            cur = None
        else:
            if words[0] == "type" and len(words) == 2:
                cur["type"] = words[1]
            elif words[0] == "subvolumes":
                cur["subvolumes"] = words[1:]
            cur["lines"].append(line)
    if cur is not None:
        die("volume %s has no end-volume" % cur["name"])
    if not blocks:
        die("no volume blocks")
    return blocks


def main():
    if len(sys.argv) != 3:
        die("usage: statvol.py IN OUT")
    with open(sys.argv[1]) as f:
        blocks = parse(f.read())
    names = {b["name"] for b in blocks}
    dht = [b for b in blocks if b["type"] == "cluster/distribute"]
    if len(dht) != 1:
        die("%d cluster/distribute xlators in %s, expected 1" % (len(dht), sys.argv[1]))
    dht = dht[0]
    if not dht["subvolumes"]:
        die("%s has no subvolumes" % dht["name"])
    for c in dht["subvolumes"]:
        if c + SUFFIX in names:
            die("%s already has an xlator named %s" % (sys.argv[1], c + SUFFIX))

    # the top of the graph: the one xlator no other one names as a subvolume
    used = {s for b in blocks for s in b["subvolumes"]}
    tops = [b for b in blocks if b["name"] not in used]
    if len(tops) != 1:
        die("%d top xlators in %s, expected 1" % (len(tops), sys.argv[1]))
    top = tops[0]
    if top["type"] == "debug/io-stats":
        if top is dht or len(top["subvolumes"]) != 1:
            die("unexpected top xlator %s" % top["name"])
        blocks.remove(top)

    out = []
    for b in blocks:
        if b is dht:
            for c in dht["subvolumes"]:
                out += ["volume " + c + SUFFIX,
                        "    type debug/io-stats",
                        "    option count-fop-hits on",
                        "    option latency-measurement on",
                        "    subvolumes " + c,
                        "end-volume", ""]
            lines = [l if l.split()[:1] != ["subvolumes"] else
                     "    subvolumes " + " ".join(c + SUFFIX for c in dht["subvolumes"])
                     for l in b["lines"]]
        else:
            lines = b["lines"]
        out += lines + [""]
    # glusterfs takes the last volume block as the top of the graph
    used = {s for b in blocks for s in b["subvolumes"]}
    if [b for b in blocks if b["name"] not in used] != [blocks[-1]]:
        die("the top of the graph is not the last volume block in %s" % sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out))
    for c in dht["subvolumes"]:
        print(c + SUFFIX)


if __name__ == "__main__":
    main()
