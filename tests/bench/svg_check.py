#!/usr/bin/env python3
"""Checks a timeline SVG drawn by czk_tl_svg against what its log says.

usage: svg_check.py SVG PNG SPEC.json

SPEC = {"lanes": {"<lane name>": [[job, start_ms, end_ms], ...], ...},
        "gaps": [[start_ms, end_ms], ...],          # idle gaps of the device
        "gap_lanes": ["gpu 0 dev 0", ...]}           # lanes the gaps cross
Times are ms since the first event of the log (the axis origin).

1. The SVG is well-formed XML (xml.etree, a real parser); it has exactly the
   lanes of SPEC (by data-lane), each with exactly as many bars as SPEC lists,
   bars of the listed jobs, and as many gap marks as SPEC lists.
2. PNG (the SVG rasterised by rsvg-convert) is decoded here (zlib, PNG
   filters); the time-to-x scale is fitted from the axis ticks (data-s, x1),
   lane rows from the lane backgrounds, job colours from the legend swatches.
   At the middle of every listed bar the pixel has its job's colour; in the
   middle of every gap the GPU lanes show no job colour.
Exit status 0 when all holds; 1 with one line per failure otherwise.
"""
import json
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("PNG depth %d type %d interlace %d not handled" %
                                 (depth, ctype, interlace))
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        ftype, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line

    def pixel(x, y):
        r = rows[y]
        return tuple(r[x * bpp:x * bpp + 3])

    return w, h, pixel


def hexcol(s):
    s = s.lstrip("#")
    return (int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16))


def near(c, d, tol=10):
    return all(abs(a - b) <= tol for a, b in zip(c, d))


def main():
    svg_path, png_path, spec_path = sys.argv[1:4]
    spec = json.load(open(spec_path))
    fails = []
    root = ET.parse(svg_path).getroot()  # raises on malformed XML
    if root.tag != NS + "svg":
        fails.append("root element is %s, not svg" % root.tag)
    lanes = {g.get("data-lane"): g for g in root.iter(NS + "g") if g.get("class") == "lane"}
    if sorted(lanes) != sorted(spec["lanes"]):
        fails.append("lanes %s, expected %s" % (sorted(lanes), sorted(spec["lanes"])))
    swatch = {r.get("data-job"): hexcol(r.get("fill")) for r in root.iter(NS + "rect")
              if r.get("class") == "swatch"}
    ticks = [(float(t.get("data-s")), float(t.get("x1"))) for t in root.iter(NS + "line")
             if t.get("class") == "tick"]
    gaps = [r for r in root.iter(NS + "rect") if r.get("class") == "gap"]
    if len(gaps) != len(spec["gaps"]):
        fails.append("%d gap marks, expected %d" % (len(gaps), len(spec["gaps"])))
    if len(ticks) < 2:
        fails.append("fewer than 2 axis ticks")
        print("\n".join(fails))
        return 1
    # least squares x = x0 + k·s
    n = len(ticks)
    ms = sum(s for s, _ in ticks) / n
    mx = sum(x for _, x in ticks) / n
    k = sum((s - ms) * (x - mx) for s, x in ticks) / sum((s - ms) ** 2 for s, _ in ticks)
    x0 = mx - k * ms

    def xof(t_ms):
        return int(round(x0 + k * t_ms / 1000.0))

    w, h, pixel = read_png(png_path)
    rowy = {}
    for name, g in lanes.items():
        bg = [r for r in g.iter(NS + "rect") if r.get("class") == "lane-bg"]
        if len(bg) != 1:
            fails.append("lane %s: %d backgrounds" % (name, len(bg)))
            continue
        rowy[name] = int(float(bg[0].get("y")) + float(bg[0].get("height")) / 2)
        bars = [r for r in g.iter(NS + "rect") if (r.get("class") or "").startswith("bar")]
        want = spec["lanes"].get(name, [])
        if len(bars) != len(want):
            fails.append("lane %s: %d bars, expected %d" % (name, len(bars), len(want)))
        if sorted(b.get("data-job") for b in bars) != sorted(j for j, _, _ in want):
            fails.append("lane %s: bars of jobs %s, expected %s" %
                         (name, sorted(b.get("data-job") for b in bars),
                          sorted(j for j, _, _ in want)))
    for name, want in spec["lanes"].items():
        if name not in rowy:
            continue
        for job, a, b in want:
            if job not in swatch:
                fails.append("no legend swatch for job %s" % job)
                continue
            x, y = xof((a + b) / 2), rowy[name]
            got = pixel(x, y)
            if not near(got, swatch[job]):
                fails.append("lane %s, job %s at %d..%d ms: pixel (%d,%d) is %s, expected %s" %
                             (name, job, a, b, x, y, got, swatch[job]))
    for a, b in spec["gaps"]:
        for name in spec.get("gap_lanes", []):
            if name not in rowy:
                continue
            x, y = xof((a + b) / 2), rowy[name]
            got = pixel(x, y)
            for job, col in swatch.items():
                if near(got, col):
                    fails.append("lane %s in the idle gap %d..%d ms: pixel (%d,%d) has job %s's "
                                 "colour" % (name, a, b, x, y, job))
    if fails:
        print("\n".join(fails))
        return 1
    print("svg_check: %d lanes, %d bars, %d gaps, %d pixels checked" %
          (len(lanes), sum(len(v) for v in spec["lanes"].values()), len(gaps),
           sum(len(v) for v in spec["lanes"].values()) +
           len(spec["gaps"]) * len(spec.get("gap_lanes", []))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
