#!/usr/bin/env bash
# Compares two sets of screenshots pixel by pixel: the same file names in BEFORE and AFTER, each PNG decoded
# (Python's standard library only: zlib and the PNG filters) and compared as RGBA pixels, so that two
# encodings of the same picture count as equal. Prints one line per picture and exits 1 when any picture
# differs or is missing on one side, 2 on bad arguments.
#
#   tools/screenshots.sh OLD_BUILD /tmp/shots-before
#   tools/screenshots.sh build/dev /tmp/shots-after
#   tools/compare-screenshots.sh /tmp/shots-before /tmp/shots-after
set -euo pipefail
[ $# -eq 2 ] && [ -d "$1" ] && [ -d "$2" ] || { echo "usage: $0 BEFORE_DIR AFTER_DIR (two folders of PNGs)" >&2; exit 2; }
exec python3 - "$1" "$2" <<'PY'
import os, struct, sys, zlib

def pixels(path):
    """(width, height, rows of RGBA bytes) of a non-interlaced 8-bit PNG (what Qt and pngquant write)."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path}: not a PNG file')
    pos, idat, palette, trns = 8, b'', None, None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'PLTE':
            palette = body
        elif kind == b'tRNS':
            trns = body
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    if depth != 8 or interlace:
        raise ValueError(f'{path}: only 8-bit non-interlaced PNGs are read (bit depth {depth})')
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if colour == 6: rgba = bytes(line)
        elif colour == 2: rgba = b''.join(bytes(line[i:i + 3]) + b'\xff' for i in range(0, stride, 3))
        elif colour == 0: rgba = b''.join(bytes([v, v, v, 255]) for v in line)
        elif colour == 4: rgba = b''.join(bytes([line[i]] * 3 + [line[i + 1]]) for i in range(0, stride, 2))
        else:
            rgba = b''.join(palette[3 * v:3 * v + 3] + bytes([trns[v] if trns and v < len(trns) else 255])
                            for v in line)
        rows.append(rgba)
    return width, height, rows

before, after = sys.argv[1], sys.argv[2]
names = sorted(n for n in set(os.listdir(before)) | set(os.listdir(after)) if n.endswith('.png'))
if not names:
    print(f'no PNG files in {before} or {after}', file=sys.stderr); sys.exit(2)
differing = 0
for name in names:
    a, b = os.path.join(before, name), os.path.join(after, name)
    if not os.path.exists(a) or not os.path.exists(b):
        print(f'{name}: only in {before if os.path.exists(a) else after}'); differing += 1; continue
    if open(a, 'rb').read() == open(b, 'rb').read():
        print(f'{name}: identical (same bytes)'); continue
    try:
        wa, ha, ra = pixels(a)
        wb, hb, rb = pixels(b)
    except (ValueError, KeyError, zlib.error, struct.error) as e:
        print(f'{name}: cannot read: {e}'); differing += 1; continue
    if (wa, ha) != (wb, hb):
        print(f'{name}: size {wa}x{ha} before, {wb}x{hb} after'); differing += 1; continue
    # Differences as bands of consecutive differing rows, each with its pixel count and x range: a
    # status-bar read-out and a label at the top show as two bands, not one box over the whole window.
    changed, bands = 0, []
    for y in range(ha):
        if ra[y] == rb[y]: continue
        xs = [x for x in range(wa) if ra[y][4 * x:4 * x + 4] != rb[y][4 * x:4 * x + 4]]
        changed += len(xs)
        if bands and bands[-1][1] == y - 1:
            y0, _, x0, x1, n = bands[-1]
            bands[-1] = (y0, y, min(x0, xs[0]), max(x1, xs[-1]), n + len(xs))
        else:
            bands.append((y, y, xs[0], xs[-1], len(xs)))
    if changed:
        where = '; '.join(f'y {y0}..{y1} x {x0}..{x1} ({n} px)' for y0, y1, x0, x1, n in bands)
        print(f'{name}: {changed} pixel(s) differ: {where}'); differing += 1
    else:
        print(f'{name}: identical')
print(f'{len(names) - differing} of {len(names)} pictures identical')
sys.exit(1 if differing else 0)
PY
