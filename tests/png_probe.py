"""png_probe.py — reads the 8-bit RGB/RGBA PNGs cairo writes (zlib and the
five PNG row filters, no PIL) and answers questions about a picture of
disks for tests/test_render.sh:
  size FILE                    -> "W H"
  blobs FILE XMAX              -> one line per connected blob of coloured pixels
                                  left of XMAX: "cx cy area r g b" (r g b at
                                  the centroid)
  column FILE X                -> the colours down column X where coloured:
                                  "top_y r g b bottom_y r g b mid r g b"
  pixel FILE X Y               -> "r g b"
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), "8-bit RGB or RGBA only"
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def coloured(rgb):
    return max(rgb) - min(rgb) > 40  # not white, black or grey (text, frame, antialiasing)


def blobs(rows, xmax):
    height, width = len(rows), min(len(rows[0]), xmax)
    seen = [[False] * width for _ in range(height)]
    found = []
    for y in range(height):
        for x in range(width):
            if seen[y][x] or not coloured(rows[y][x]):
                continue
            stack, pixels = [(x, y)], []
            seen[y][x] = True
            while stack:
                px, py = stack.pop()
                pixels.append((px, py))
                for nx, ny in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)):
                    if 0 <= nx < width and 0 <= ny < height and not seen[ny][nx] and coloured(rows[ny][nx]):
                        seen[ny][nx] = True
                        stack.append((nx, ny))
            if len(pixels) < 20:
                continue
            cx = sum(p[0] for p in pixels) / len(pixels)
            cy = sum(p[1] for p in pixels) / len(pixels)
            found.append((cx, cy, len(pixels)) + rows[int(round(cy))][int(round(cx))])
    return found


def main():
    command, path = sys.argv[1], sys.argv[2]
    width, height, rows = read_png(path)
    if command == "size":
        print(width, height)
    elif command == "blobs":
        for b in blobs(rows, int(sys.argv[3])):
            print("%.2f %.2f %d %d %d %d" % b)
    elif command == "column":
        x = int(sys.argv[3])
        ys = [y for y in range(height) if coloured(rows[y][x])]
        top, bottom = ys[0] + 2, ys[-1] - 2
        mid = (top + bottom) // 2
        print(top, *rows[top][x], bottom, *rows[bottom][x], mid, *rows[mid][x])
    elif command == "pixel":
        print(*rows[int(sys.argv[4])][int(sys.argv[3])])


main()
