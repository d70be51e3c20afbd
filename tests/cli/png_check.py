#!/usr/bin/env python3
"""Checks that a PNG screenshot is a real picture: a valid PNG, larger than a minimum size,
and not (nearly) one colour. Standard library only (no PIL): parses the chunks, inflates the
IDAT stream with zlib, undoes the scanline filters, and counts colours.

usage: png_check.py FILE.png MIN_BYTES
Exit 0 when it passes; 1 with a one-line reason when it does not.
"""
import struct
import sys
import zlib


def fail(msg):
    print(f"{sys.argv[1]}: {msg}")
    sys.exit(1)


def main():
    path, min_bytes = sys.argv[1], int(sys.argv[2])
    try:
        data = open(path, "rb").read()
    except OSError as e:
        fail(f"cannot read: {e}")
    if len(data) < min_bytes:
        fail(f"only {len(data)} bytes (want at least {min_bytes})")
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG file (bad signature)")
    pos, idat, ihdr = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if ihdr is None:
        fail("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        fail(f"unexpected format (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(idat)
    bpp, stride = channels, width * channels
    if len(raw) != height * (stride + 1):
        fail(f"IDAT holds {len(raw)} bytes, expected {height * (stride + 1)}")
    prev = bytearray(stride)
    colours = {}
    background = None
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif f != 0:
            fail(f"bad filter type {f} on row {y}")
        if y % 4 == 0:  # sample every fourth row: plenty for the statistics below
            for x in range(0, stride, bpp * 2):
                px = bytes(line[x:x + bpp])
                colours[px] = colours.get(px, 0) + 1
        prev = line
    total = sum(colours.values())
    background, count = max(colours.items(), key=lambda kv: kv[1])
    other = 1.0 - count / total
    print(f"{path}: {width}x{height}, {len(data)} bytes, {len(colours)} colours sampled, "
          f"{100 * other:.1f}% of pixels differ from the background")
    if len(colours) < 16:
        fail(f"only {len(colours)} distinct colours: an empty or failed render")
    if other < 0.01:
        fail(f"{100 * other:.2f}% of pixels differ from the background: nearly blank")


if __name__ == "__main__":
    main()
