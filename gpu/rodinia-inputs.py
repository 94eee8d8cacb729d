#!/usr/bin/env python3
"""rodinia-inputs.py - the input files of gpu/program-checks-rodinia.txt's
programs, made from a fixed seed, so that memsim here and the GPU there read
the same bytes (Rodinia's own data/ folder is a separate download).

    python3 gpu/rodinia-inputs.py RODINIA     -> RODINIA/data/...

RODINIA is a checkout of github.com/yuhc/gpu-rodinia; each file lands where
its program's `run` script looks for it, at the size that script names.  The
values are random but of the kind the program expects (temperatures near
330 K, a connected graph, hurricane records); a file already there is kept.
"""
import os, random, struct, sys


def write(root, rel, text_or_bytes):
    path = os.path.join(root, "data", rel)
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb" if isinstance(text_or_bytes, bytes) else "w") as f:
        f.write(text_or_bytes)
    os.replace(tmp, path)


def floats(rng, n, lo, hi):
    return "".join("%.6f\n" % rng.uniform(lo, hi) for _ in range(n))


def graph(rng, nodes):
    """bfs's format: node count, (first edge, edge count) per node, the
    source, edge count, (neighbour, cost) per edge; 1-8 edges a node, the
    first to the next node so that every node is reached"""
    starts, edges = [], []
    for i in range(nodes):
        k = rng.randint(1, 8)
        starts.append("%d %d" % (len(edges), k))
        edges.append((i + 1) % nodes)
        edges.extend(rng.randrange(nodes) for _ in range(k - 1))
    return "%d\n%s\n\n0\n\n%d\n%s\n" % (nodes, "\n".join(starts), len(edges),
                                         "\n".join("%d %d" % (e, rng.randint(1, 10)) for e in edges))


NAMES = ["ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE",
         "ISAAC", "JOYCE", "KIRK", "LESLIE", "MICHAEL", "NADINE", "OSCAR", "PATTY", "RAFAEL",
         "SANDY", "TONY", "VALERIE", "WILLIAM"]


def hurricanes(rng, n):
    """nn's records, as its hurricane_gen writes them (fixed-width: the
    latitude at column 28, the longitude at 33)"""
    return "".join("%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d\n" % (
        1950 + rng.randrange(55), 1 + rng.randrange(12), 1 + rng.randrange(28),
        rng.choice([0, 6, 12, 18]), 1 + rng.randrange(28), rng.choice(NAMES),
        7 + rng.randrange(63) + rng.random(), rng.randrange(358) + rng.random(),
        10 + rng.randrange(155), rng.randrange(900)) for _ in range(n))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "cuda")):
        sys.exit("usage: rodinia-inputs.py RODINIA (a checkout of gpu-rodinia, with its cuda/ folder)")
    root = sys.argv[1]
    rng = random.Random(20261203)
    write(root, "hotspot/temp_512", floats(rng, 512 * 512, 323.0, 343.0))
    write(root, "hotspot/power_512", floats(rng, 512 * 512, 0.0, 0.005))
    write(root, "hotspot3D/power_512x8", floats(rng, 512 * 512 * 8, 0.0, 0.005))
    write(root, "hotspot3D/temp_512x8", floats(rng, 512 * 512 * 8, 323.0, 343.0))
    write(root, "bfs/graph65536.txt", graph(rng, 65536))
    for j in range(4):   # hurricane_gen 42760 4: 10 691 records in each of 4 files
        write(root, "nn/cane4_%d.db" % j, hurricanes(rng, 42760 // 4 + 1))
    # dwt2d reads the file's first 3 x 1024 x 1024 bytes as 8-bit RGB
    header = b"BM" + struct.pack("<IHHI", 54 + (3 << 20), 0, 0, 54) + bytes(40)
    write(root, "dwt2d/rgb.bmp", header + bytes(rng.randrange(256) for _ in range(3 << 20)))
    # srad_v1: a 502 x 458 8-bit grey image (PGM, plain)
    write(root, "srad/image.pgm", "P2\n458 502\n255\n" +
          "".join("%d\n" % rng.randrange(256) for _ in range(502 * 458)))
    # myocyte: 91 state variables and 18 parameters, small positive values
    write(root, "myocyte/y.txt", floats(rng, 91, 0.0, 1.0))
    write(root, "myocyte/params.txt", floats(rng, 18, 0.0, 1.0))
    # b+tree: a million keys to build the tree from, and its queries (j:
    # 6 000 ranges of 3 000; k: 10 000 keys; the keys the program picks with
    # rand(), unseeded, the same on both machines)
    write(root, "b+tree/mil.txt", "1000000\n" +
          "".join("%d\n" % rng.randrange(1000000) for _ in range(1000000)))
    write(root, "b+tree/command.txt", "j 6000 3000\nk 10000\n")
    # cfd: 97 046 cells (fvcorr.domn.097K's count), each an area and 4
    # faces: a neighbour (1-based; -1 a wall, -2 the far field) and the
    # face's normal
    cells = 97046
    out = ["%d\n" % cells]
    for i in range(cells):
        faces = []
        for j in range(4):
            r = rng.random()
            nb = -1 if r < 0.02 else -2 if r < 0.04 else \
                 1 + (i + rng.randrange(-64, 65)) % cells
            faces.append("%d %.6f %.6f %.6f" % (nb, rng.uniform(-1e-4, 1e-4),
                                                 rng.uniform(-1e-4, 1e-4), rng.uniform(-1e-4, 1e-4)))
        out.append("%.8f %s\n" % (rng.uniform(1e-9, 1e-7), " ".join(faces)))
    write(root, "cfd/fvcorr.domn.097K", "".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
