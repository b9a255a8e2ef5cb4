# The interference engine from Python (vcsim.interference, vcsim.mass_properties, vcsim.Shape): every expected value
# is a closed form of the geometry, never the engine's own output.
import math

import numpy as np
import pytest

import vcsim

R = 0.1  # m


def cap(h):
    """Volume, centroid depth below the plane... of a sphere's cap of height h: V = π h² (3R − h)/3, the centroid at
    3 (2R − h)² / (4 (3R − h)) from the sphere's centre, and the moment about the axis (π/2) ∫_{R−h}^{R} (R² − z²)² dz
    (unit density)."""
    V = math.pi * h * h * (3 * R - h) / 3
    d = 3 * (2 * R - h) ** 2 / (4 * (3 * R - h))
    F = lambda z: R**4 * z - 2 * R**2 * z**3 / 3 + z**5 / 5
    J_axis = math.pi / 2 * (F(R) - F(R - h))
    return V, d, J_axis


@pytest.mark.parametrize("h", [1e-4, 1e-3, 0.02, 0.1])
def test_sphere_on_plane_is_the_cap(h):
    ball, plane = vcsim.Shape.sphere(R), vcsim.Shape.half_space()
    q = vcsim.interference(ball, ([0.3, -0.2, R - h], [1, 0, 0, 0]), plane, None)
    V, d, J_axis = cap(h)
    # A closed form (docs/geometry.md): exact to rounding; 1e-9 relative covers the rounding of h² against R².
    assert q.closed_form
    assert q.overlap
    assert q.volume == pytest.approx(V, rel=1e-9)
    assert q.centroid == pytest.approx([0.3, -0.2, R - h - d], rel=1e-9, abs=1e-12)
    assert q.inertia[2, 2] == pytest.approx(J_axis, rel=1e-9)
    assert q.inertia[0, 1] == pytest.approx(0, abs=1e-9 * J_axis)  # the cap's axis is z: no product of inertia
    assert q.normal == pytest.approx([0, 0, 1], abs=1e-12)  # from the plane toward the ball


def test_apart_is_no_overlap():
    q = vcsim.interference(vcsim.Shape.sphere(R), ([0, 0, R + 1e-6], [1, 0, 0, 0]), vcsim.Shape.half_space(), None)
    assert not q.overlap and q.volume == 0


def test_two_boxes_overlap_in_a_box():
    a = vcsim.Shape.box([1, 1, 1])
    q = vcsim.interference(a, None, a, ([0.5, 0.25, 0], [1, 0, 0, 0]))
    # The overlap is the box [0, 0.5] x [-0.25, 0.5] x [-0.5, 0.5]: V = abc, centroid its centre, J = V/12 (b²+c², ...).
    x, y, z = 0.5, 0.75, 1.0
    V = x * y * z
    assert q.volume == pytest.approx(V, rel=1e-12)
    assert q.centroid == pytest.approx([0.25, 0.125, 0], abs=1e-12)
    assert np.diag(q.inertia) == pytest.approx([V * (y * y + z * z) / 12, V * (x * x + z * z) / 12,
                                                V * (x * x + y * y) / 12], rel=1e-12)
    assert q.closed_form


def test_pose_as_matrix_equals_pose_as_pair():
    # A rotation of 30° about (1, 1, 1)/√3 written both ways: the same query, so the same numbers to rounding.
    theta, axis = math.radians(30), np.ones(3) / math.sqrt(3)
    qw, qv = math.cos(theta / 2), math.sin(theta / 2) * axis
    x, y, z = qv
    Rm = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * qw), 2 * (x * z + y * qw)],
                   [2 * (x * y + z * qw), 1 - 2 * (x * x + z * z), 2 * (y * z - x * qw)],
                   [2 * (x * z - y * qw), 2 * (y * z + x * qw), 1 - 2 * (x * x + y * y)]])
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = Rm, [0.01, 0.02, 0.05]
    box, plane = vcsim.Shape.box([0.2, 0.1, 0.15]), vcsim.Shape.half_space()
    a = vcsim.interference(box, T, plane, None)
    b = vcsim.interference(box, ([0.01, 0.02, 0.05], [qw, *qv]), plane, None)
    assert a.volume > 0
    assert a.volume == pytest.approx(b.volume, rel=1e-12)
    assert a.centroid == pytest.approx(b.centroid, rel=1e-12, abs=1e-15)
    assert a.inertia == pytest.approx(b.inertia, rel=1e-10, abs=1e-18)


def test_bad_poses_and_sizes_raise():
    s = vcsim.Shape.sphere(R)
    with pytest.raises(ValueError, match="NaN"):
        vcsim.interference(s, ([0, 0, math.nan], [1, 0, 0, 0]), s, None)
    with pytest.raises(ValueError, match="nonzero quaternion"):
        vcsim.interference(s, ([0, 0, 0], [0, 0, 0, 0]), s, None)
    with pytest.raises(ValueError, match="rotation"):
        vcsim.interference(s, np.diag([2.0, 1, 1, 1]), s, None)
    with pytest.raises(TypeError, match="pose"):
        vcsim.interference(s, "here", s, None)
    with pytest.raises(ValueError, match="positive"):
        vcsim.Shape.sphere(-1)
    with pytest.raises(ValueError, match="3 numbers"):
        vcsim.Shape.box([1, 2])
    with pytest.raises(TypeError):
        vcsim.interference(s, None, "not a shape", None)


def test_box_mass_properties():
    a, b, c, rho = 0.2, 0.3, 0.4, 1000.0
    p = vcsim.mass_properties(vcsim.Shape.box([a, b, c]), rho)
    m = rho * a * b * c
    # Exact for a box (a polyhedron's moments in closed form): rounding only.
    assert p.mass == pytest.approx(m, rel=1e-12)
    assert p.center_of_mass == pytest.approx([0, 0, 0], abs=1e-14)
    assert np.diag(p.inertia) == pytest.approx([m * (b * b + c * c) / 12, m * (a * a + c * c) / 12,
                                                m * (a * a + b * b) / 12], rel=1e-12)


def test_hemisphere_by_intersection():
    r, rho = 0.1, 500.0
    half = vcsim.Shape.sphere(r).intersection(vcsim.Shape.half_space())
    p = vcsim.mass_properties(half, rho)
    m = rho * 2 / 3 * math.pi * r**3
    # Solid hemisphere: centre of mass 3r/8 below the flat face; about it, I_zz = 2/5 m r², I_xx = 83/320 m r².
    # The cap is a closed form (sphere against a plane): 1e-9 relative.
    assert p.mass == pytest.approx(m, rel=1e-9)
    assert p.center_of_mass == pytest.approx([0, 0, -3 * r / 8], rel=1e-9, abs=1e-15)
    assert np.diag(p.inertia) == pytest.approx([83 / 320 * m * r * r, 83 / 320 * m * r * r, 0.4 * m * r * r],
                                               rel=1e-9)


def test_box_with_a_spherical_cavity_by_complement():
    r = 0.3
    solid = vcsim.Shape.box([1, 1, 1]) & ~vcsim.Shape.sphere(r)
    p = vcsim.mass_properties(solid, 1.0, tolerance=1e-6)
    ms = 4 / 3 * math.pi * r**3
    # Box minus ball: m = 1 − 4/3 π r³, I = 1/6 − 2/5 m_s r² about the common centre. A curved cavity goes through
    # the column engine: its relative accuracy target is the 1e-6 asked, so 1e-5 leaves room.
    assert p.mass == pytest.approx(1 - ms, rel=1e-5)
    assert p.center_of_mass == pytest.approx([0, 0, 0], abs=1e-5)
    assert np.diag(p.inertia) == pytest.approx([1 / 6 - 0.4 * ms * r * r] * 3, rel=1e-5)


def test_mesh_from_arrays_is_the_box():
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]) * [0.2, 0.3, 0.4]
    # Vertex index = 4 i_x + 2 i_y + i_z; two triangles per face, counter-clockwise seen from outside.
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    mesh = vcsim.Shape.mesh(v, f)
    p, q = vcsim.mass_properties(mesh, 1000.0), vcsim.mass_properties(vcsim.Shape.box([0.2, 0.3, 0.4]), 1000.0)
    # The same solid: exact moments of a closed mesh, rounding only.
    assert p.mass == pytest.approx(q.mass, rel=1e-12)
    assert p.inertia == pytest.approx(q.inertia, rel=1e-12, abs=1e-15)
    # A mesh on a plane is a closed form too (docs/geometry.md): a 0.01 m slice of the 0.2 x 0.3 base.
    s = vcsim.interference(mesh, ([0, 0, 0.19], [1, 0, 0, 0]), vcsim.Shape.half_space(), None)
    assert s.closed_form and s.volume == pytest.approx(0.2 * 0.3 * 0.01, rel=1e-9)


def test_concave_mesh_split_into_convex_pieces():
    # An L prism (0.2 x 0.1 plus 0.1 x 0.1, 0.05 high): one reflex edge, so split="convex" gives two cells, the same
    # solid (exact moments both ways: rounding only). Its area is 0.03 m^2.
    poly = [(0, 0), (0.2, 0), (0.2, 0.1), (0.1, 0.1), (0.1, 0.2), (0, 0.2)]
    v = [(x, y, 0) for x, y in poly] + [(x, y, 0.05) for x, y in poly]
    f = []
    for k in range(6):
        j = (k + 1) % 6
        f += [[k, j, 6 + j], [k, 6 + j, 6 + k]]
    for k in range(1, 5):  # the caps, fanned from the reflex vertex 3, which sees every other vertex
        a, b = (3 + k) % 6, (3 + k + 1) % 6
        f += [[3, b, a], [9, 6 + a, 6 + b]]
    whole, split = vcsim.Shape.mesh(v, f), vcsim.Shape.mesh(v, f, split="convex")
    assert whole.cells == 1 and split.cells == 2
    p, q = vcsim.mass_properties(whole, 1000.0), vcsim.mass_properties(split, 1000.0)
    assert q.mass == pytest.approx(1000 * 0.03 * 0.05, rel=1e-12)
    assert p.mass == pytest.approx(q.mass, rel=1e-12)
    assert p.inertia == pytest.approx(q.inertia, rel=1e-10)
    with pytest.raises(ValueError, match="split 'convex' or 'none'"):
        vcsim.Shape.mesh(v, f, split="yes")


def test_open_mesh_is_an_input_error():
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(vcsim.InputError, match="mesh"):
        vcsim.Shape.mesh(v, [[0, 2, 1], [0, 1, 3]])  # two faces of a tetrahedron: not closed
    with pytest.raises(ValueError, match="outside"):
        vcsim.Shape.mesh(v, [[0, 2, 9]])


@pytest.mark.parametrize("name", ["cylinder", "cone", "capsule", "ellipsoid", "torus"])
def test_primitive_mass_properties(name):
    rho = 1000.0
    r, L, a, b, c, R_, r_ = 0.05, 0.2, 0.1, 0.07, 0.04, 0.1, 0.03
    if name == "cylinder":  # m = ρ π r² L; I_zz = m r²/2, I_xx = m (3 r² + L²)/12
        s, m = vcsim.Shape.cylinder(r, L), rho * math.pi * r * r * L
        I = [m * (3 * r * r + L * L) / 12] * 2 + [m * r * r / 2]
    elif name == "cone":  # a full cone (top radius 0), base at z = −L/2: V = π r² L/3, centroid L/4 above the base,
        # I_zz = 3/10 m r², I_xx about the centroid = 3/20 m r² + 3/80 m L²
        s, m = vcsim.Shape.cone(r, 0.0, L), rho * math.pi * r * r * L / 3
        I = [3 / 20 * m * r * r + 3 / 80 * m * L * L] * 2 + [0.3 * m * r * r]
    elif name == "capsule":  # a cylinder (r, L) and a ball of radius r split at its ends
        mc, ms = rho * math.pi * r * r * L, rho * 4 / 3 * math.pi * r**3
        m = mc + ms
        # Each hemisphere's centre of mass is 3r/8 from the cylinder's end; parallel axes to the middle.
        ixx_h = (83 / 320) * (ms / 2) * r * r + (ms / 2) * (L / 2 + 3 * r / 8) ** 2
        s, I = vcsim.Shape.capsule(r, L), [mc * (3 * r * r + L * L) / 12 + 2 * ixx_h] * 2 + [mc * r * r / 2 + 0.4 * ms * r * r]
    elif name == "ellipsoid":  # m = ρ 4/3 π a b c; I_xx = m (b² + c²)/5, ...
        s, m = vcsim.Shape.ellipsoid([a, b, c]), rho * 4 / 3 * math.pi * a * b * c
        I = [m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5]
    else:  # torus: V = 2 π² R r²; I_zz = m (R² + 3/4 r²), I_xx = m (R²/2 + 5/8 r²)
        s, m = vcsim.Shape.torus(R_, r_), rho * 2 * math.pi**2 * R_ * r_ * r_
        I = [m * (R_ * R_ / 2 + 5 / 8 * r_ * r_)] * 2 + [m * (R_ * R_ + 0.75 * r_ * r_)]
    p = vcsim.mass_properties(s, rho)
    # Closed forms against a box where the engine has them, else the column engine at mass_properties' default
    # tolerance 1e-6: 1e-5 relative leaves room for either.
    assert p.mass == pytest.approx(m, rel=1e-5)
    com = [0, 0, -L / 2 + L / 4] if name == "cone" else [0, 0, 0]
    assert p.center_of_mass == pytest.approx(com, abs=1e-6 * L)
    assert np.diag(p.inertia) == pytest.approx(I, rel=1e-5)


def test_unbounded_shapes_have_no_mass_but_do_interfere():
    for s in (vcsim.Shape.half_space(), vcsim.Shape.slab(0.1), vcsim.Shape.infinite_cylinder(0.1)):
        with pytest.raises(vcsim.InputError, match="unbounded"):
            vcsim.mass_properties(s, 1.0)
    # A unit cube centred on a slab of thickness 0.1: the overlap is a 1 x 1 x 0.1 plate (closed form, exact).
    q = vcsim.interference(vcsim.Shape.box([1, 1, 1]), None, vcsim.Shape.slab(0.1), None)
    assert q.volume == pytest.approx(0.1, rel=1e-12)


def test_two_cells_sum_by_parallel_axes():
    # Two unit cubes at x = ∓1 with their centres at z = 0.3 and 0.1, so sunk 0.2 and 0.4 m into the half-space
    # z <= 0: the overlap is two plates 1 x 1 x 0.2 and 1 x 1 x 0.4. V = 0.6; the centroid is the volume-weighted
    # one; J about it is each plate's own (V/12 (b² + c²), ...) plus V (|d|² I − d dᵀ) by parallel axes.
    cube = vcsim.Shape.box([1, 1, 1])
    body = cube.moved(([-1, 0, 0.3], [1, 0, 0, 0])) | cube.moved(([1, 0, 0.1], [1, 0, 0, 0]))
    assert body.cells == 2
    q = vcsim.interference(body, None, vcsim.Shape.half_space(), None)
    plates = [(0.2, np.array([-1, 0, -0.1])), (0.4, np.array([1, 0, -0.2]))]  # (thickness, centroid)
    V = sum(t for t, _ in plates)
    c = sum(t * p for t, p in plates) / V
    J = np.zeros((3, 3))
    for t, p in plates:
        own = t / 12 * np.diag([1 + t * t, 1 + t * t, 2.0])
        d = p - c
        J += own + t * (d @ d * np.eye(3) - np.outer(d, d))
    # Closed forms (a box on a plane) and exact sums: rounding only.
    assert q.closed_form
    assert q.volume == pytest.approx(V, rel=1e-12)
    assert q.centroid == pytest.approx(c, abs=1e-12)
    assert q.inertia == pytest.approx(J, rel=1e-10, abs=1e-12)


def test_mesh_from_a_file(tmp_path):
    # The unit cube as an OBJ file (1-based faces, counter-clockwise from outside): the box's mass properties.
    v = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    path = tmp_path / "cube.obj"
    path.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in v) + "".join(f"f {a+1} {b+1} {c+1}\n" for a, b, c in f))
    p = vcsim.mass_properties(vcsim.Shape.mesh(path, scale=2.0), 1.0)
    # Scaled by 2: a cube of side 2, m = 8, I = m (4 + 4)/12 about each axis; exact moments of a closed mesh.
    assert p.mass == pytest.approx(8.0, rel=1e-12)
    assert np.diag(p.inertia) == pytest.approx([8 * 8 / 12] * 3, rel=1e-12)
    with pytest.raises(ValueError, match="no file"):
        vcsim.Shape.mesh(tmp_path / "missing.obj")
