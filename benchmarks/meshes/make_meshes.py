#!/usr/bin/env python3
"""Deterministic benchmark meshes (issue 16): writes rock_700.obj, rock_100k.obj, bowl_1000.obj next to this file
(and with --huge rock_1m.obj, 1 003 520 triangles, for the loading benchmark).

rock: the surface r(u) = e(u) * (1 + 0.04 u_x u_y + 0.03 u_z^2) over the unit direction u, e(u) the ellipsoid
(0.06, 0.05, 0.04) m, sampled on a latitude-longitude grid of 24 x 15 (672 triangles), and the same shape over an
geodesic sphere of 100 820 nearly equal triangles (each icosahedron face split 71 x 71). bowl: a solid of revolution with a cavity (outer and inner
profiles joined by a rim, a flat foot), 0.12 m across, 1 080 triangles. slab: the 1 x 1 x 0.1 m table as 12
triangles. Every mesh is checked closed (each
directed edge has its twin), outward (positive signed volume) and of Euler characteristic 2."""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rock_point(u):
    """The rock's surface point in the unit direction u."""
    a, b, c = 0.06, 0.05, 0.04
    e = 1.0 / math.sqrt((u[0] / a) ** 2 + (u[1] / b) ** 2 + (u[2] / c) ** 2)
    r = e * (1 + 0.04 * u[0] * u[1] + 0.03 * u[2] ** 2)
    return (r * u[0], r * u[1], r * u[2])


def rock_geodesic(n):
    """The same rock over a geodesic sphere: each icosahedron face split into n x n nearly equal triangles (20 n^2
    in all; no slivers meeting at a pole, as a scanned or remeshed part has)."""
    t = (1 + math.sqrt(5)) / 2
    ico = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
           (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    v, index, f = [], {}, []

    def vertex(face, i, j):
        # Grid point (i, j) of the face (i + j <= n), keyed by its exact barycentric position among the
        # icosahedron's corners so that neighbouring faces share their edge points.
        a, b, c = face
        w = {a: n - i - j, b: i, c: j}
        key = tuple(sorted((k, x) for k, x in w.items() if x))
        if key not in index:
            p = [sum(ico[k][d] * x for k, x in key) for d in range(3)]
            r = math.sqrt(sum(y * y for y in p))
            v.append(rock_point([y / r for y in p]))
            index[key] = len(v) - 1
        return index[key]

    for face in faces:
        for i in range(n):
            for j in range(n - i):
                f.append((vertex(face, i, j), vertex(face, i + 1, j), vertex(face, i, j + 1)))
                if i + j + 1 < n:
                    f.append((vertex(face, i + 1, j), vertex(face, i + 1, j + 1), vertex(face, i, j + 1)))
    return v, f


def revolve(profile, n):
    """A closed solid of revolution about z from a closed profile [(r, z)] traversed so that the solid is on its
    left; the first and last points lie on the axis (r = 0)."""
    v, f = [], []
    ids = []
    for (r, z) in profile:
        if r == 0:
            v.append((0.0, 0.0, z))
            ids.append([len(v) - 1] * n)
        else:
            row = []
            for j in range(n):
                ph = 2 * math.pi * j / n
                v.append((r * math.cos(ph), r * math.sin(ph), z))
                row.append(len(v) - 1)
            ids.append(row)
    for k in range(len(profile) - 1):
        p, q = ids[k], ids[k + 1]
        for j in range(n):
            j1 = (j + 1) % n
            if p[j] != p[j1]:  # a band between two rings, or a ring and the axis
                f.append((p[j], p[j1], q[j1]))
                if q[j] != q[j1]:
                    f.append((p[j], q[j1], q[j]))
            else:  # from the axis to a ring
                f.append((p[j], q[j1], q[j]))
    return v, f


def bowl():
    # Outer profile from the foot's centre out and up to the rim, then the inner profile back down to the
    # cavity's bottom on the axis. Radii in m.
    prof = [(0.0, 0.0), (0.03, 0.0), (0.032, 0.004)]
    for k in range(1, 7):
        t = k / 6
        prof.append((0.032 + 0.028 * math.sin(t * math.pi / 2), 0.004 + 0.036 * t))
    prof.append((0.056, 0.04))  # the rim's inner edge
    for k in range(1, 7):
        t = k / 6
        prof.append((0.056 - 0.05 * math.sin(t * math.pi / 2) if k < 6 else 0.008, 0.04 - 0.03 * t))
    prof.append((0.0, 0.01))
    # The profile runs outward at the bottom and inward at the top: the solid lies on its left when seen from
    # outside, so the faces come out inward; flip below if the signed volume is negative.
    return revolve(prof, 36)


def slab():
    """A 1 x 1 x 0.1 m box as 12 triangles, top face at z = 0.05 (centred): the table as a mesh."""
    v = [(x, y, z) for z in (-0.05, 0.05) for y in (-0.5, 0.5) for x in (-0.5, 0.5)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    f = []
    for q in quads:
        f += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return v, f


def check(v, f, name):
    edges = {}
    for t in f:
        for k in range(3):
            e = (t[k], t[(k + 1) % 3])
            assert e not in edges, f"{name}: edge {e} used twice in one direction"
            edges[e] = True
    for (a, b) in edges:
        assert (b, a) in edges, f"{name}: open edge {(a, b)}"
    vol = sum(
        (v[a][0] * (v[b][1] * v[c][2] - v[b][2] * v[c][1]) - v[a][1] * (v[b][0] * v[c][2] - v[b][2] * v[c][0])
         + v[a][2] * (v[b][0] * v[c][1] - v[b][1] * v[c][0])) for (a, b, c) in f) / 6
    euler = len(v) - len(edges) // 2 + len(f)
    for t in f:
        assert len(set(t)) == 3, f"{name}: degenerate triangle {t}"
    return vol, euler


def write(name, v, f):
    vol, euler = check(v, f, name)
    if vol < 0:
        f = [(a, c, b) for (a, b, c) in f]
        vol = -vol
    assert euler == 2, f"{name}: Euler characteristic {euler}"
    with open(os.path.join(HERE, name), "w") as out:
        out.write(f"# {name}: {len(f)} triangles, volume {vol:.9e} m^3 (benchmarks/meshes/make_meshes.py)\n")
        for p in v:
            out.write("v %.12g %.12g %.12g\n" % p)
        for t in f:
            out.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))
    print(f"{name}: {len(v)} vertices, {len(f)} triangles, volume {vol:.6e} m^3, Euler characteristic {euler}")


if __name__ == "__main__":
    if "--huge" in sys.argv:  # the loading benchmark's million triangles (~10 s, 48 MB; benchmarks/bench_mesh_load)
        write("rock_1m.obj", *rock_geodesic(224))
    write("rock_700.obj", *rock_geodesic(6))
    write("rock_100k.obj", *rock_geodesic(71))
    write("bowl_1000.obj", *bowl())
    write("slab_12.obj", *slab())
