#!/usr/bin/env python3
"""intrinsics-compare.py GPU.txt MEMSIM.txt: compares the dumps of
gpu/probes/intrinsics.cu, array by array.  Integer arrays must be equal;
float arrays may differ by a few units in the last place (CUDA's
approximate functions, __sinf and the like, run on the GPU's special
function unit; memsim computes them with the host's libm).  Exit 1 when
an integer differs or a float is more than 4 ulp off."""
import struct
import sys

FORMATS = {"fmath": "f", "hmath": "f", "dmath": "d", "imath": "Q", "warp_ops": "i",
           "atomics-f": "f", "atomics-d": "d", "atomics-u": "I", "atomics-u67": "I",
           "atomics-ull": "Q", "atomics-s": "i", "atomics-h2": "I"}


def load(path):
    arrays, cur = {}, None
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        if all(c in "0123456789abcdef" for c in line):
            arrays[cur] += bytes.fromhex(line)
        else:
            cur = line
            arrays[cur] = b""
    return arrays


def ulps(a, b, f):
    """distance in units of the last place of two floats of format f"""
    pack, ints = ("<f", "<i") if f == "f" else ("<d", "<q")
    ia, ib = (struct.unpack(ints, struct.pack(pack, x))[0] for x in (a, b))
    return abs(ia - ib)


def main():
    gpu, sim = load(sys.argv[1]), load(sys.argv[2])
    bad = False
    for name, data in gpu.items():
        f = FORMATS[name]
        size = struct.calcsize(f)
        other = sim.get(name, b"")
        if len(other) != len(data):
            print(f"{name}: memsim's dump has {len(other)} bytes, the GPU's {len(data)}")
            bad = True
            continue
        a = struct.unpack(f"<{len(data) // size}{f}", data)
        b = struct.unpack(f"<{len(other) // size}{f}", other)
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if not diff:
            print(f"{name}: identical ({len(a)} values)")
        elif f in "fd":
            worst = max(ulps(a[i], b[i], f) for i in diff)
            print(f"{name}: {len(diff)} of {len(a)} differ, at most {worst} ulp")
            bad |= worst > 4
        else:
            print(f"{name}: {len(diff)} of {len(a)} differ (first: [{diff[0]}] {a[diff[0]]} on the GPU, "
                  f"{b[diff[0]]} in memsim)")
            bad = True
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
