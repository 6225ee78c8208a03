#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fixtree.py: build and record file trees for the fix integration tests.

  fixtree.py populate ROOT DIRS FILES [SEED]
      Make a deterministic tree under ROOT (a FUSE mount): DIRS directories (nested up to 3
      levels; the root counts as one), FILES files spread over them and the root, with sizes
      from 0 to a few MiB, sparse files (16 MiB apparent, 3 data blocks), hard links (same and
      other directory), symlinks (relative, absolute, dangling), owners and modes of every kind,
      and odd names: UTF-8 (also names whose last bytes are >= 0x80), spaces, tabs, a 255-byte
      name, dot-files that the default rsync-hash-regex munges, "-" leading names.
      Prints "sparse PATH" and "hardlink PATH" lines (relative paths) for the test.
  fixtree.py manifest ROOT
      One line per entry below ROOT (sorted; .glusterfs-free): path, type, mode, uid, gid,
      size, nlink, and md5 (files) or the target (symlinks). Exits 1 when a directory lists a
      name twice (DHT duplicates) or an entry vanishes between readdir and lstat.
  fixtree.py list ROOT
      The relative paths of every non-directory (for the fresh-lookup checker), sorted.
"""
import hashlib
import os
import random
import stat
import sys

ODD = [
    "héllo wörld", "日本語.txt", "é", "ü", "ж", "é2", "ça", "å", "ß", "Ωmega",
    "with space", "  leading", "trailing  ", "tab\there", "-dash", "--double",
    ".foo.txt.AbC123", ".x.y", ".bashrc", ".config.json", ".hidden.tar.gz.Xyz789",
    "a" * 255, ("é" * 127) + "x", "semi;colon", "quote'single", 'quote"double',
    "back\\slash", "star*", "percent%20", "brace{}", "#hash", "~tilde", "emoji😀",
]


def size_for(rng, i):
    r = rng.random()
    if r < 0.08:
        return 0
    if r < 0.80:
        return rng.randint(1, 16 * 1024)
    if r < 0.99:
        return rng.randint(16 * 1024, 256 * 1024)
    return rng.randint(1 << 20, 3 << 20)


def data(rng, n, i):
    # cheap, file-specific content: a seeded block repeated with the index mixed in
    block = (b"%08d:" % i) + rng.randbytes(4091)
    out = (block * (n // len(block) + 1))[:n]
    return out


def populate(root, ndirs, nfiles, seed):
    rng = random.Random(seed)
    dirs = [""]
    # 3 levels: top, sub, subsub
    top = max(1, ndirs // 10)
    while len(dirs) < ndirs:
        k = len(dirs)
        if k <= top:
            d = "d%03d" % k
        else:
            parent = dirs[rng.randint(1, len(dirs) - 1)]
            if parent.count("/") >= 2:
                parent = parent.rsplit("/", 1)[0]
            d = parent + "/s%03d" % k
        if k % 17 == 0:
            d += " spaced é"
        dirs.append(d)
    for d in dirs[1:]:
        os.mkdir(os.path.join(root, d))
    modes = [0o644, 0o600, 0o640, 0o755, 0o444, 0o700, 0o664, 0o4755, 0o2755, 0o1644]
    owners = [(0, 0), (1000, 1000), (1001, 100), (1002, 1003), (65534, 65534)]
    made = []
    odd = list(ODD)
    for i in range(nfiles):
        d = dirs[0] if i % 25 == 0 else dirs[rng.randint(1, len(dirs) - 1)]
        if odd and i % 7 == 3:
            name = odd.pop()
        else:
            name = "f%05d" % i + rng.choice(["", ".txt", ".dat", ".tar.gz", ""])
        p = os.path.join(d, name)
        if p in made:
            p = os.path.join(d, "x%05d" % i)
        full = os.path.join(root, p)
        n = size_for(rng, i)
        with open(full, "wb") as f:
            f.write(data(rng, n, i))
        uid, gid = owners[i % len(owners)]
        os.chown(full, uid, gid)
        os.chmod(full, modes[i % len(modes)])
        made.append(p)
    # sparse files: 16 MiB apparent size, 3 small data islands
    for k in range(8):
        d = dirs[(k * 13 + 1) % len(dirs)]
        p = os.path.join(d, "sparse%d.img" % k)
        with open(os.path.join(root, p), "wb") as f:
            for off in (0, 8 << 20, (16 << 20) - 4096):
                f.seek(off)
                f.write(rng.randbytes(4096))
        print("sparse " + p)
    # hard links: same directory and another directory
    regular = [p for p in made if "/" in p]
    for k in range(12):
        src = regular[(k * 101) % len(regular)]
        d = os.path.dirname(src) if k % 2 == 0 else dirs[(k * 7 + 3) % len(dirs)]
        dst = os.path.join(d, "hl%02d" % k)
        os.link(os.path.join(root, src), os.path.join(root, dst))
        print("hardlink " + src)
        print("hardlink " + dst)
    # symlinks
    for k in range(24):
        d = dirs[(k * 5 + 2) % len(dirs)]
        tgt = ["../" + made[k], "/etc/hostname", "dangling-%d" % k, made[k * 3].split("/")[-1]][k % 4]
        os.symlink(tgt, os.path.join(root, d, "sym%02d" % k))


def walk(root):
    dup = False
    out = []
    stack = [""]
    while stack:
        d = stack.pop()
        names = os.listdir(os.path.join(root, d) if d else root)
        seen = set()
        for n in names:
            if n in seen:
                print("duplicate name in readdir: %r" % os.path.join(d, n), file=sys.stderr)
                dup = True
            seen.add(n)
        for n in sorted(seen):
            if not d and n.startswith(".glusterfs"):
                continue
            p = os.path.join(d, n)
            out.append(p)
            st = os.lstat(os.path.join(root, p))
            if stat.S_ISDIR(st.st_mode):
                stack.append(p)
    return out, dup


def md5(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def manifest(root):
    paths, dup = walk(root)
    lines = []
    for p in paths:
        full = os.path.join(root, p)
        st = os.lstat(full)
        t = stat.S_IFMT(st.st_mode)
        extra = ""
        if stat.S_ISREG(t):
            kind, extra = "f", md5(full)
        elif stat.S_ISLNK(t):
            kind, extra = "l", os.readlink(full)
        elif stat.S_ISDIR(t):
            kind = "d"
        else:
            kind = "o"
        size = st.st_size if kind != "d" else 0
        lines.append("%s\t%s\t%o\t%d:%d\t%d\t%d\t%s" % (
            p.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            .replace("\t", "\\t").replace("\n", "\\n"),
            kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, size,
            st.st_nlink if kind != "d" else 0, extra))
    lines.sort()
    sys.stdout.write("\n".join(lines) + "\n")
    return 1 if dup else 0


def listfiles(root):
    paths, dup = walk(root)
    for p in sorted(paths):
        if not stat.S_ISDIR(os.lstat(os.path.join(root, p)).st_mode):
            if "\n" in p:
                continue
            sys.stdout.write(p + "\n")
    return 1 if dup else 0


def main():
    a = sys.argv
    if len(a) >= 5 and a[1] == "populate":
        populate(a[2], int(a[3]), int(a[4]), int(a[5]) if len(a) > 5 else 1)
        return 0
    if len(a) == 3 and a[1] == "manifest":
        return manifest(a[2])
    if len(a) == 3 and a[1] == "list":
        return listfiles(a[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
