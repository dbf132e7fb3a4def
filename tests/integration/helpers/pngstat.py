#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pngstat.py FILE X0 Y0 X1 Y1: statistics of a region of a PNG screenshot
(8-bit RGB/RGBA, not interlaced, as Chromium writes them), with the
standard library only. Prints "distinct=N nonwhite=F" where F is the share
of pixels in the region that are not near-white."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG"
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    path = sys.argv[1]
    w, h, bpp, rows = read_png(path)
    x0, y0, x1, y1 = (int(v) for v in sys.argv[2:6])
    x1, y1 = min(x1, w), min(y1, h)
    colours, nonwhite, total = set(), 0, 0
    for y in range(y0, y1):
        r = rows[y]
        for x in range(x0, x1):
            px = tuple(r[x * bpp:x * bpp + 3])
            colours.add(px)
            total += 1
            if min(px) < 235:
                nonwhite += 1
    print("size=%dx%d distinct=%d nonwhite=%.4f" % (w, h, len(colours), nonwhite / max(total, 1)))


main()
