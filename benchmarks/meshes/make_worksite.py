#!/usr/bin/python3
"""battery_box's worksite as ONE closed triangle mesh: writes benchmarks/scenes/battery_box_worksite.obj.

The solid is the exact union of the 7 convex cells of the worksite body in scenarios/battery_box.yaml (bottom_plate,
wall_py, wall_ny, rail_{py,ny}_{upper,lower}, each rail cut by its 45 deg lead-in half-space), in the worksite body
frame (the cells' positions in the yaml; the body itself sits at [0, 0, -0.095] m in the scene).

CONSTRUCTION. Every face of every cell lies on one of a few coordinate planes (x, y or z = const) or on a chamfer
plane x + z = -0.057 m (upper rails) or x - z = -0.057 m (lower rails), and the chamfer planes do not depend on y.
The script takes the rectilinear grid of all those coordinates (in integer millimetres, so every comparison is
exact) and classifies each grid cell: empty, full, or a chamfer cell, which the chamfer plane cuts along its x-z
diagonal into a triangular prism (3 of the rectangle's 4 corners kept). The boundary of the union is then
  * each grid face (a rectangle, or for y-faces the half of one on either side of the chamfer diagonal) that is
    solid on exactly one side, oriented away from the solid side;
  * the diagonal face of each chamfer cell.
Faces the cells share (rail against wall, wall against plate) are solid on both sides and are never emitted. All
pieces meet along whole grid edges or cell diagonals, so there is no T-junction; flat faces come out split along
grid lines (extra coplanar triangles, harmless for the exact mesh-and-planes interference path).

CHECKS (the script fails if any does not hold): every directed edge appears once and its reverse once (closed,
2-manifold edges, consistent orientation); each vertex's triangles form one fan (manifold vertex); no vertex lies
inside another edge (no T-junction); no zero-area triangle; every triangle's outward normal points out of the
union (a point 1 um outside its centroid is outside all 7 cells, 1 um inside is inside one), tested against the
cells' own definitions; the divergence-theorem volume of the written file equals the cells' exact volume sum,
computed in closed form from the box sizes and chamfer triangles, to 1e-12 relative.

Run: /usr/bin/python3 benchmarks/meshes/make_worksite.py   (standard library + numpy; deterministic output)
"""
import os
import sys
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "..", "benchmarks", "scenes", "battery_box_worksite.obj"))

MM = 1000  # the grid is in integer millimetres; coordinates are written as k / 1000 m


# The 7 cells of battery_box.yaml's worksite, in mm: (x range, y range, z range, chamfer) where chamfer is None or
# (sx, sz, c): the kept side sx*x + sz*z >= c (a half-space whose boundary is independent of y).
#   upper rail: outward normal (-1, 0, -1)/sqrt2 through (-80, ., 23): keep x + z >= -57
#   lower rail: outward normal (-1, 0, +1)/sqrt2 through (-80, ., -23): keep x - z >= -57
def worksite_cells():
    cells = [
        ("bottom_plate", (250, 280), (-255, 255), (-200, 200), None),
        ("wall_py", (-100, 250), (235, 255), (-200, 200), None),
        ("wall_ny", (-100, 250), (-255, -235), (-200, 200), None),
    ]
    for side, (y0, y1) in (("py", (215, 235)), ("ny", (-235, -215))):
        cells.append((f"rail_{side}_upper", (-100, 250), (y0, y1), (23, 60), (1, 1, -57)))
        cells.append((f"rail_{side}_lower", (-100, 250), (y0, y1), (-60, -23), (1, -1, -57)))
    return cells


def inside_cell(cell, p):
    """Point p (mm, floats) strictly inside the cell (open set)."""
    _, xr, yr, zr, ch = cell
    for v, (a, b) in zip(p, (xr, yr, zr)):
        if not (a < v < b):
            return False
    if ch is not None:
        sx, sz, c = ch
        if not (sx * p[0] + sz * p[2] > c):
            return False
    return True


def cell_volume_mm3(cell):
    """Closed form for one cell: its box, minus for a rail the chamfer's right-triangle prism. The lead-in plane
    sx x + sz z = c (|sx| = |sz| = 1, 45 deg) cuts the box's entry corner facing the slot, (x0, z_slot), where the
    plane is short of it by c - (sx x0 + sz z_slot): both legs of the cut triangle have that length (20 mm), and
    the prism is the rail's thickness in y. Exact rational, mm^3."""
    _, xr, yr, zr, ch = cell
    vol = Fraction((xr[1] - xr[0]) * (yr[1] - yr[0]) * (zr[1] - zr[0]))
    if ch is not None:
        sx, sz, c = ch
        z_slot = zr[0] if sz > 0 else zr[1]  # the rail face towards the slot
        leg = c - (sx * xr[0] + sz * z_slot)
        assert 0 < leg < min(xr[1] - xr[0], zr[1] - zr[0])
        vol -= Fraction(leg * leg, 2) * (yr[1] - yr[0])
    return vol


def exact_volume_m3(cells):
    """The sum of the cells' volumes (they are disjoint: the union's volume), exact rational, m^3."""
    return sum((cell_volume_mm3(c) for c in cells), Fraction(0)) / MM**3


def build(cells):
    xs = sorted({v for c in cells for v in c[1]} | {-80})  # -80: where the chamfers meet the rails' slot faces
    ys = sorted({v for c in cells for v in c[2]})
    zs = sorted({v for c in cells for v in c[3]} | {-43, 43})  # +-43: where they meet the entry faces
    nx, ny, nz = len(xs) - 1, len(ys) - 1, len(zs) - 1

    # Occupancy of grid cell (i, j, k): the set of its x-z rectangle's corners (di, dk) in {0,1}^2 that the solid
    # keeps, as a prism along y. Every cell of the union is a box (a whole grid block) or a box cut by a chamfer
    # plane through two opposite corners of a grid cell's x-z rectangle (asserted below).
    occ = {}
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                centre = ((xs[i] + xs[i + 1]) / 2, (ys[j] + ys[j + 1]) / 2, (zs[k] + zs[k + 1]) / 2)
                owners = [c for c in cells if c[1][0] <= centre[0] <= c[1][1] and c[2][0] <= centre[1] <= c[2][1]
                          and c[3][0] <= centre[2] <= c[3][1]]
                assert len(owners) <= 1, "the cells overlap"
                kept = frozenset()
                if owners:
                    ch = owners[0][4]
                    corners = [(di, dk) for di in (0, 1) for dk in (0, 1)]
                    if ch is None:
                        kept = frozenset(corners)
                    else:
                        sx, sz, c = ch
                        val = {(di, dk): sx * xs[i + di] + sz * zs[k + dk] - c for (di, dk) in corners}
                        if all(v >= 0 for v in val.values()):
                            kept = frozenset(corners)
                        elif all(v <= 0 for v in val.values()):
                            kept = frozenset()
                        else:
                            on = [q for q in corners if val[q] == 0]
                            assert len(on) == 2 and on[0][0] != on[1][0] and on[0][1] != on[1][1], \
                                "a chamfer plane must cut a grid cell along its x-z diagonal"
                            kept = frozenset(q for q in corners if val[q] >= 0)
                            assert len(kept) == 3
                occ[(i, j, k)] = kept

    def cell_occ(i, j, k):
        if 0 <= i < nx and 0 <= j < ny and 0 <= k < nz:
            return occ[(i, j, k)]
        return frozenset()

    verts = {}  # (x, y, z) mm -> index, assigned after sorting
    tris = []   # triangles as mm-tuples, outward by construction

    def quad(a, b, c, d, normal):
        """Quad a-b-c-d (in order around its boundary), emitted as two triangles facing `normal`."""
        tri(a, b, c, normal)
        tri(a, c, d, normal)

    def tri(a, b, c, normal):
        n = np.cross(np.subtract(b, a), np.subtract(c, a))
        assert np.dot(n, normal) != 0
        if np.dot(n, normal) < 0:
            b, c = c, b
        tris.append((a, b, c))

    # x-faces (at x = xs[i], between cells i-1 and i) and z-faces: covered by a cell iff both corners of its
    # rectangle on that edge are kept (a triangle keeps the two edges at its right-angle corner, a point of the others).
    for i in range(nx + 1):
        for j in range(ny):
            for k in range(nz):
                lo = {(1, 0), (1, 1)} <= cell_occ(i - 1, j, k)  # cell i-1's edge at its di = 1
                hi = {(0, 0), (0, 1)} <= cell_occ(i, j, k)
                if lo != hi:
                    x = xs[i]
                    quad((x, ys[j], zs[k]), (x, ys[j + 1], zs[k]), (x, ys[j + 1], zs[k + 1]),
                         (x, ys[j], zs[k + 1]), (1 if lo else -1, 0, 0))
    for k in range(nz + 1):
        for i in range(nx):
            for j in range(ny):
                lo = {(0, 1), (1, 1)} <= cell_occ(i, j, k - 1)
                hi = {(0, 0), (1, 0)} <= cell_occ(i, j, k)
                if lo != hi:
                    z = zs[k]
                    quad((xs[i], ys[j], z), (xs[i + 1], ys[j], z), (xs[i + 1], ys[j + 1], z),
                         (xs[i], ys[j + 1], z), (0, 0, 1 if lo else -1))
    # y-faces: the two sides' x-z in-regions are corner sets of the same rectangle; the exposed region is their
    # difference, split along the chamfer diagonal when either side is a triangle.
    for j in range(ny + 1):
        for i in range(nx):
            for k in range(nz):
                a, b = cell_occ(i, j - 1, k), cell_occ(i, j, k)
                if a == b:
                    continue
                y = ys[j]
                P = {(di, dk): (xs[i + di], y, zs[k + dk]) for di in (0, 1) for dk in (0, 1)}
                tri_side = a if len(a) == 3 else b if len(b) == 3 else None
                if tri_side is None:  # full against empty
                    ny_ = 1 if len(a) == 4 else -1
                    quad(P[(0, 0)], P[(1, 0)], P[(1, 1)], P[(0, 1)], (0, ny_, 0))
                    continue
                removed = ({(0, 0), (0, 1), (1, 0), (1, 1)} - tri_side).pop()
                opposite = (1 - removed[0], 1 - removed[1])
                diag = [q for q in P if q not in (removed, opposite)]
                half_kept = (opposite, diag[0], diag[1])  # the triangle the chamfer keeps
                half_cut = (removed, diag[0], diag[1])    # the triangle it removes
                for side, other, ny_ in ((a, b, 1), (b, a, -1)):  # a below y (normal +y), b above (normal -y)
                    for half in (half_kept, half_cut):
                        mine = set(half) <= side
                        theirs = set(half) <= other
                        assert not (len(side) == 3 and len(other) == 3 and side != other), "facing chamfers"
                        if mine and not theirs:
                            tri(P[half[0]], P[half[1]], P[half[2]], (0, ny_, 0))
    # The chamfer faces: the diagonal of each chamfer cell, facing the removed corner.
    for (i, j, k), kept in sorted(occ.items()):
        if len(kept) != 3:
            continue
        removed = ({(0, 0), (0, 1), (1, 0), (1, 1)} - kept).pop()
        opposite = (1 - removed[0], 1 - removed[1])
        d0, d1 = [q for q in ((0, 0), (0, 1), (1, 0), (1, 1)) if q not in (removed, opposite)]
        p = lambda q, y: (xs[i + q[0]], y, zs[k + q[1]])
        out = (xs[i + removed[0]] - xs[i + opposite[0]], 0, zs[k + removed[1]] - zs[k + opposite[1]])
        quad(p(d0, ys[j]), p(d1, ys[j]), p(d1, ys[j + 1]), p(d0, ys[j + 1]), out)

    order = sorted({v for t in tris for v in t})
    index = {v: n for n, v in enumerate(order)}
    faces = [tuple(index[v] for v in t) for t in tris]
    return order, faces


def check(v_mm, f, cells):
    """Closed, manifold, no T-junction, outward, exact boundary of the union (see the module docstring)."""
    v = np.array(v_mm, dtype=float)
    directed = {}
    for n, t in enumerate(f):
        for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            assert (a, b) not in directed, f"edge {a}->{b} run twice in one direction (triangles {directed.get((a, b))}, {n})"
            directed[(a, b)] = n
    for (a, b) in directed:
        assert (b, a) in directed, f"open edge {a}-{b}"
    # manifold vertices: the triangles around each vertex form one cycle (follow the outgoing edges)
    nxt = {}
    for t in f:
        for r in range(3):
            a, b, c = t[r], t[(r + 1) % 3], t[(r + 2) % 3]
            nxt.setdefault(a, {})[b] = c  # around vertex a: from edge a->b to edge a->c... (c->a is incoming)
    for a, m in nxt.items():
        # triangle (a, b, c) has outgoing a->b and incoming c->a; its neighbour across a-c has outgoing a->c
        start = next(iter(m))
        cur, seen = start, 0
        while True:
            cur = m[cur]
            seen += 1
            if cur == start:
                break
            assert seen <= len(m)
        assert seen == len(m), f"vertex {a} has {len(m)} triangles in more than one fan"
    # no T-junction: no vertex strictly inside an edge
    edges = {tuple(sorted(e)) for e in directed}
    for (a, b) in edges:
        pa, pb = v[a], v[b]
        d = pb - pa
        for w in range(len(v)):
            if w in (a, b):
                continue
            q = v[w] - pa
            s = np.dot(q, d) / np.dot(d, d)
            if 0 < s < 1 and np.linalg.norm(np.cross(q, d)) == 0:
                raise AssertionError(f"T-junction: vertex {w} on edge {a}-{b}")
    # non-degenerate, outward, on the boundary of the exact union
    for n, t in enumerate(f):
        a, b, c = v[t[0]], v[t[1]], v[t[2]]
        nrm = np.cross(b - a, c - a)
        area2 = np.linalg.norm(nrm)
        assert area2 > 0, f"zero-area triangle {n}"
        u = nrm / area2
        g = (a + b + c) / 3
        eps = 1e-3  # mm: 1 um
        outside = g + eps * u
        inside = g - eps * u
        assert not any(inside_cell(cell, outside) for cell in cells), f"triangle {n} faces into the solid"
        assert sum(inside_cell(cell, inside) for cell in cells) == 1, f"triangle {n} not on the solid's boundary"


def signed_volume(v, f):
    v = np.asarray(v, dtype=float)
    t = np.asarray(f)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c)))) / 6.0


def read_obj(path):
    v, f = [], []
    with open(path) as fh:
        for line in fh:
            s = line.split()
            if not s:
                continue
            if s[0] == "v":
                v.append(tuple(float(x) for x in s[1:4]))
            elif s[0] == "f":
                f.append(tuple(int(x.split("/")[0]) - 1 for x in s[1:4]))
    return v, f


def main():
    cells = worksite_cells()
    v_mm, f = build(cells)
    check(v_mm, f, cells)
    exact = exact_volume_m3(cells)
    # exact volume of the mesh itself in rationals (mm integers): must equal the closed form exactly
    vol_mm = Fraction(0)
    for t in f:
        a, b, c = (v_mm[k] for k in t)
        cr = (b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0])
        vol_mm += Fraction(a[0] * cr[0] + a[1] * cr[1] + a[2] * cr[2], 6)
    assert vol_mm / MM**3 == exact, f"rational mesh volume {float(vol_mm) / MM**3} != exact {float(exact)}"
    with open(OUT, "w") as out:
        out.write("# battery_box worksite as one closed mesh: the exact union of battery_box.yaml's 7 worksite cells\n")
        out.write("# (worksite body frame, m), %d vertices, %d triangles, volume %r m^3.\n"
                  % (len(v_mm), len(f), float(exact)))
        out.write("# Generated by benchmarks/meshes/make_worksite.py; do not edit.\n")
        for p in v_mm:
            out.write("v %r %r %r\n" % tuple(x / MM for x in p))
        for t in f:
            out.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))
    # verify what was written: re-read, recheck topology, and the float volume against the closed form
    v_m, f2 = read_obj(OUT)
    assert f2 == f
    check([tuple(x * MM for x in p) for p in v_m], f2, cells)
    mesh_vol = signed_volume(v_m, f2)
    parts = [f"{c[0]} {float(cell_volume_mm3(c) / MM**3):.6e}" for c in cells]
    print("cells:", ", ".join(parts))
    print(f"wrote {OUT}: {len(v_m)} vertices, {len(f2)} triangles")
    print(f"mesh volume (divergence theorem, file as written) = {mesh_vol!r} m^3")
    print(f"exact sum of the 7 cells' volumes (closed form)   = {float(exact)!r} m^3  ({exact} m^3)")
    rel = abs(mesh_vol - float(exact)) / float(exact)
    print(f"relative difference = {rel:.3e}")
    if rel > 1e-12:
        print("FAIL: the mesh volume differs from the cells' volume sum", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
