#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bricks.py: check a DHT volume from its bricks alone, independently of layoutctl.

  bricks.py check [--allow-linked FILE|--linked-ok] [--sparse FILE] [--strays-ok] H SUBVOL...
      SUBVOL is NAME=BRICK[,BRICK...] (the DHT child's xlator name and its bricks, in DHT
      order). Hashes come from libglusterfs's own gf_dm_hashfn (ctypes), after the default
      rsync-hash-regex munge. Checks, for every directory found on any brick:
        - it exists on every brick, and every brick's trusted.glusterfs.dht has commit word H;
        - the bricks of one subvolume agree on the range; the ranges cover the ring once;
      and for every non-directory name:
        - exactly one subvolume holds the data (no duplicates), the same on all its bricks;
        - the data is on the hashed subvolume, or the name is listed in --allow-linked (one
          relative path a line: hard links, which DHT refuses to migrate) and the hashed
          subvolume holds a linkto (mode 01000, linkto xattr = data subvolume + NUL);
        - no linkto elsewhere (a stray), unless --strays-ok (they are then only counted);
        - no source of a migration left (setgid + sticky and the linkto xattr; a user's
          setgid + sticky file without that xattr is data).
        - a linkto carries the gfid of its data (DHT makes it with that gfid);
      --linked-ok: any file may be linked instead of placed (fix --mode linkto).
      --linkto-owner: a linkto is owned as its data is (DHT gives it the file's owner after
          making it as root: dht_linkfile_attr_heal(); a client's rename may leave it root's).
      --sparse FILE: those relative paths must use less than 1 MiB on their data bricks.
      Prints one line per problem and a summary; exit 0 when there is none.
"""
import ctypes
import os
import re
import stat
import struct
import sys

lib = ctypes.CDLL("libglusterfs.so.0")
lib.gf_dm_hashfn.restype = ctypes.c_uint32
lib.gf_dm_hashfn.argtypes = [ctypes.c_char_p, ctypes.c_int]
RSYNC = re.compile(rb"^\.(.+)\.[^.]+$")
LAYOUT = "trusted.glusterfs.dht"
LINKTO = "trusted.glusterfs.dht.linkto"


def dmhash(name):
    m = RSYNC.match(name)
    if m and len(m.group(1)) < len(name):
        name = m.group(1)
    return lib.gf_dm_hashfn(name, len(name))


def gfid(path):
    try:
        return os.getxattr(path, "trusted.gfid", follow_symlinks=False).hex()
    except OSError:
        return "none"


def main():
    args = sys.argv[1:]
    if not args or args[0] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    args = args[1:]
    allow, sparse, strays_ok, linked_ok, linkto_owner = set(), [], False, False, False
    while args and args[0].startswith("--"):
        if args[0] == "--allow-linked":
            allow = set(l.rstrip("\n").encode("utf-8", "surrogateescape")
                        for l in open(args[1], encoding="utf-8", errors="surrogateescape") if l.strip())
            args = args[2:]
        elif args[0] == "--sparse":
            sparse = [l.rstrip("\n").encode("utf-8", "surrogateescape")
                      for l in open(args[1], encoding="utf-8", errors="surrogateescape") if l.strip()]
            args = args[2:]
        elif args[0] == "--linked-ok":
            linked_ok = True
            args = args[1:]
        elif args[0] == "--strays-ok":
            strays_ok = True
            args = args[1:]
        elif args[0] == "--linkto-owner":
            linkto_owner = True
            args = args[1:]
        else:
            print("unknown option " + args[0], file=sys.stderr)
            return 2
    commit = int(args[0])
    subvols = []
    for a in args[1:]:
        name, bricks = a.split("=", 1)
        subvols.append((name.encode(), [b.encode() for b in bricks.split(",")]))
    n = len(subvols)
    problems = 0
    counts = {"dirs": 0, "files": 0, "placed": 0, "linked": 0, "strays": 0}

    def problem(msg):
        nonlocal problems
        problems += 1
        if problems <= 50:
            sys.stdout.write("PROBLEM " + msg + "\n")

    # every directory on any brick
    dirs = set()
    for _, bricks in subvols:
        for b in bricks:
            for root, ds, _ in os.walk(b):
                rel = os.path.relpath(root, b)
                if rel == b".":
                    rel = b""
                dirs.add(rel)
                if rel == b"":
                    # .glusterfs, and replicate's .glusterfs-anonymous-inode-<uuid>
                    ds[:] = [d for d in ds if not d.startswith(b".glusterfs")]
    for d in sorted(dirs):
        counts["dirs"] += 1
        show = d.decode("utf-8", "backslashreplace") or "/"
        ranges = []
        ok = True
        for si, (name, bricks) in enumerate(subvols):
            seen = None
            for b in bricks:
                p = os.path.join(b, d)
                try:
                    raw = os.getxattr(p, LAYOUT, follow_symlinks=False)
                except OSError as e:
                    problem("%s: no layout on %s (%s)" % (show, b.decode(), e.strerror))
                    ok = False
                    continue
                c, t, start, stop = struct.unpack(">IIII", raw)
                if c != commit:
                    problem("%s: commit word 0x%08x on %s, want 0x%08x" % (show, c, b.decode(), commit))
                if seen is not None and seen != (start, stop):
                    problem("%s: the bricks of %s disagree on the range" % (show, name.decode()))
                seen = (start, stop)
            if seen is None:
                ok = False
                continue
            ranges.append((seen[0], seen[1], si))
        if not ok:
            continue
        live = sorted(r for r in ranges if not (r[0] == 0 and r[1] == 0))
        pos = 0
        for start, stop, _ in live:
            if start != pos:
                problem("%s: hole or overlap at 0x%08x" % (show, pos))
                break
            pos = stop + 1
        else:
            if pos != 1 << 32:
                problem("%s: the ranges end at 0x%08x" % (show, pos - 1))

        def hashed_of(h):
            for start, stop, si in live:
                if start <= h <= stop:
                    return si
            return -1

        # sightings of each name on each subvolume (the first brick decides; replicas compared)
        names = {}
        for si, (name, bricks) in enumerate(subvols):
            views = []
            for b in bricks:
                v = {}
                p = os.path.join(b, d)
                for e in os.listdir(p):
                    if d == b"" and e.startswith(b".glusterfs"):
                        continue
                    st = os.lstat(os.path.join(p, e))
                    if stat.S_ISDIR(st.st_mode):
                        continue
                    kind = "data"
                    target = None
                    if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o1000:
                        try:
                            target = os.getxattr(os.path.join(p, e), LINKTO, follow_symlinks=False)
                            kind = "linkto"
                        except OSError:
                            pass
                    elif stat.S_ISREG(st.st_mode) and (st.st_mode & (stat.S_ISGID | stat.S_ISVTX)) == \
                            (stat.S_ISGID | stat.S_ISVTX):
                        # DHT's marker only with its linkto xattr: else the user's own bits
                        try:
                            os.getxattr(os.path.join(p, e), LINKTO, follow_symlinks=False)
                            kind = "phase1"
                        except OSError:
                            pass
                    v[e] = (kind, target, st.st_blocks, os.path.join(p, e), st.st_uid, st.st_gid)
                views.append(v)
            for other in views[1:]:
                if {k: x[:2] for k, x in other.items()} != {k: x[:2] for k, x in views[0].items()}:
                    problem("%s: the bricks of %s list different entries" % (show, name.decode()))
            for e, x in views[0].items():
                names.setdefault(e, {})[si] = x
        for e, where in sorted(names.items()):
            counts["files"] += 1
            rel = os.path.join(d, e)
            showf = rel.decode("utf-8", "backslashreplace")
            data = [si for si, x in where.items() if x[0] in ("data", "phase1")]
            if any(x[0] == "phase1" for x in where.values()):
                problem("%s: migration bits left" % showf)
            if len(data) != 1:
                problem("%s: data on %d subvolumes" % (showf, len(data)))
                continue
            cached = data[0]
            hashed = hashed_of(dmhash(e))
            links = {si: x[1] for si, x in where.items() if x[0] == "linkto"}
            if cached == hashed:
                counts["placed"] += 1
            else:
                want = subvols[cached][0] + b"\0"
                if links.get(hashed) != want:
                    problem("%s: on %s, hashed %s has no correct linkto (%r)" % (
                        showf, subvols[cached][0].decode(),
                        subvols[hashed][0].decode() if hashed >= 0 else "-", links.get(hashed)))
                elif gfid(where[hashed][3]) != gfid(where[cached][3]):
                    problem("%s: the linkto on %s carries gfid %s, the data on %s %s" % (
                        showf, subvols[hashed][0].decode(), gfid(where[hashed][3]),
                        subvols[cached][0].decode(), gfid(where[cached][3])))
                elif linkto_owner and where[hashed][4:6] != where[cached][4:6]:
                    problem("%s: the linkto is owned by %d:%d, the data by %d:%d" % (
                        (showf,) + where[hashed][4:6] + where[cached][4:6]))
                elif rel not in allow and not linked_ok:
                    problem("%s: linked, not migrated (data on %s, hashed %s)" % (
                        showf, subvols[cached][0].decode(), subvols[hashed][0].decode()))
                else:
                    counts["linked"] += 1
                links.pop(hashed, None)
            for si in links:
                counts["strays"] += 1
                if not strays_ok:
                    problem("%s: stray linkto on %s -> %r" % (showf, subvols[si][0].decode(), links[si]))
    for rel in sparse:
        d, e = os.path.split(rel)
        for name, bricks in subvols:
            p = os.path.join(bricks[0], rel)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_IMODE(st.st_mode) == 0o1000:
                continue
            if st.st_blocks * 512 >= 1 << 20:
                problem("%s: not sparse on %s (%d bytes used)" % (rel.decode(), bricks[0].decode(),
                                                                   st.st_blocks * 512))
    print("bricks: %d directories, %d files: %d placed, %d linked, %d stray linkto, %d problems" % (
        counts["dirs"], counts["files"], counts["placed"], counts["linked"], counts["strays"], problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
