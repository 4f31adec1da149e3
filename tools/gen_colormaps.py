#!/usr/bin/python3
"""Regenerates ui/render/colortables.h from matplotlib's colour maps (run with Debian's python3-matplotlib)."""
import matplotlib, pathlib
root = pathlib.Path(__file__).resolve().parent.parent
out = ["#pragma once", "", "// 256-entry colour tables of matplotlib's perceptually uniform maps (viridis, magma, cividis:",
       "// van der Walt & Smith, CC0) sampled at i/255. Generated once by tools/gen_colormaps.py.", "",
       "#include <array>", "#include <cstdint>", "", "namespace attnscope::colortables {", ""]
for name in ["viridis", "magma", "cividis"]:
    cmap = matplotlib.colormaps[name]
    vals = ["0x%02x%02x%02x" % tuple(round(c * 255) for c in cmap(i / 255.0)[:3]) for i in range(256)]
    out.append(f"inline constexpr std::array<std::uint32_t, 256> {name} = {{")
    out += ["    " + ", ".join(vals[i:i + 8]) + "," for i in range(0, 256, 8)]
    out += ["};", ""]
out.append("} // namespace attnscope::colortables")
(root / "ui/render/colortables.h").write_text("\n".join(out) + "\n")
