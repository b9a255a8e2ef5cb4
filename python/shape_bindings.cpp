// Shapes and the interference engine on their own from Python (docs/python.md): vcsim.Shape, vcsim.interference,
// vcsim.mass_properties.
#include <tbb/global_control.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "python/bindings.h"

namespace vcsim::python {
namespace {

// A temporary OBJ file for a mesh given as arrays: the geometry reads meshes from files (geometry/mesh.h), and a
// CSG shape made from this one re-reads it, so it lives as long as a shape refers to it.
struct TempFile {
  std::string path;
  ~TempFile() { std::remove(path.c_str()); }
};

struct PyShape {
  geo::CsgNode node;
  std::vector<std::shared_ptr<TempFile>> files;
  mutable std::shared_ptr<const geo::BodyGeometry> geometry;  // normalised on first use

  const geo::BodyGeometry& cells() const {
    if (!geometry)
      geometry = located([&] { return std::make_shared<const geo::BodyGeometry>(geo::make_body_geometry(node, ".")); });
    return *geometry;
  }
};

geo::CsgNode primitive_node(const geo::Primitive& p, const char* constructor) {
  geo::CsgNode n;
  n.primitive = p;
  n.where.file = "<python>";
  n.where.key_path = std::string("Shape.") + constructor;
  return n;
}
PyShape primitive_shape(const geo::Primitive& p, const char* constructor) {
  PyShape s{primitive_node(p, constructor), {}, nullptr};
  s.cells();  // bad sizes raise here, at the constructor
  return s;
}
double positive(double x, const char* what) {
  if (!(x > 0) || !std::isfinite(x))
    throw py::value_error(std::string(what) + ": expected a positive finite length, got " + brief_number(x));
  return x;
}

// Three positive finite lengths (a box's size, an ellipsoid's radii).
Vec3 positive_vec3(py::handle h, const char* what) {
  const Vec3 v = read_vec3(h, what);
  for (int i = 0; i < 3; ++i) positive(v[i], what);
  return v;
}

PyShape combine(geo::CsgNode::Op op, const std::vector<const PyShape*>& parts, const char* what) {
  PyShape s;
  s.node.op = op;
  s.node.where.file = "<python>";
  s.node.where.key_path = what;
  for (const PyShape* p : parts) {
    s.node.children.push_back(p->node);
    s.files.insert(s.files.end(), p->files.begin(), p->files.end());
  }
  s.cells();
  return s;
}

// Every primitive of the tree placed by `pose` (the shape's frame moved to the pose).
void move(geo::CsgNode& node, const Pose& pose) {
  if (node.op == geo::CsgNode::Op::Primitive)
    node.primitive.pose = pose.compose(node.primitive.pose);
  else
    for (auto& c : node.children) move(c, pose);
}

PyInterference query(const PyShape& a, const Pose& pa, const PyShape& b, const Pose& pb, double tolerance) {
  if (!(tolerance > 0) || !(tolerance < 1))
    throw py::value_error("interference: expected 0 < tolerance < 1, got " + brief_number(tolerance));
  return sum_interference(a.cells().cells, pa, b.cells().cells, pb, tolerance);
}

using ShapeClass = py::class_<PyShape>;

// A mesh's `split` (docs/scenario-format.md): "convex" or "none".
bool split_convex(const std::string& split) {
  if (split != "convex" && split != "none")
    throw py::value_error("Shape.mesh: expected split 'convex' or 'none', got '" + split + "'");
  return split == "convex";
}

// Shape.sphere(r), .box(size), ...: the primitives and meshes of docs/scenario-format.md, "Geometry".
void def_primitives(ShapeClass& shape) {
  shape.def_static("sphere", [](double r) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Sphere, p.radius = positive(r, "Shape.sphere radius");
        return primitive_shape(p, "sphere");
      }, py::arg("radius"))
      .def_static("box", [](py::handle size) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Box, p.size = positive_vec3(size, "Shape.box size");
        return primitive_shape(p, "box");
      }, py::arg("size"), "full extents (x, y, z)")
      .def_static("cylinder", [](double r, double length) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Cylinder, p.radius = positive(r, "Shape.cylinder radius");
        p.length = positive(length, "Shape.cylinder length");
        return primitive_shape(p, "cylinder");
      }, py::arg("radius"), py::arg("length"))
      .def_static("cone", [](double r_bottom, double r_top, double length) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Cone, p.radius = r_bottom, p.radius_top = r_top;
        p.length = positive(length, "Shape.cone length");
        return primitive_shape(p, "cone");
      }, py::arg("radius_bottom"), py::arg("radius_top"), py::arg("length"), "a frustum when both radii are > 0")
      .def_static("capsule", [](double r, double length) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Capsule, p.radius = positive(r, "Shape.capsule radius"), p.length = length;
        return primitive_shape(p, "capsule");
      }, py::arg("radius"), py::arg("length"), "length of the axis segment")
      .def_static("ellipsoid", [](py::handle radii) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Ellipsoid, p.radii = positive_vec3(radii, "Shape.ellipsoid radii");
        return primitive_shape(p, "ellipsoid");
      }, py::arg("radii"))
      .def_static("torus", [](double major, double minor) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Torus, p.major_radius = positive(major, "Shape.torus major_radius");
        p.minor_radius = positive(minor, "Shape.torus minor_radius");
        return primitive_shape(p, "torus");
      }, py::arg("major_radius"), py::arg("minor_radius"))
      .def_static("half_space", [] {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::HalfSpace;
        return primitive_shape(p, "half_space");
      }, "the region z <= 0")
      .def_static("slab", [](double thickness) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Slab, p.thickness = positive(thickness, "Shape.slab thickness");
        return primitive_shape(p, "slab");
      }, py::arg("thickness"), "the region |z| <= thickness / 2")
      .def_static("infinite_cylinder", [](double r) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::InfiniteCylinder, p.radius = positive(r, "Shape.infinite_cylinder radius");
        return primitive_shape(p, "infinite_cylinder");
      }, py::arg("radius"))
      .def_static("_mesh_file", [](const std::string& path, double scale, const std::string& split) {
        if (!std::filesystem::exists(path)) throw py::value_error("Shape.mesh: no file '" + path + "'");
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Mesh, p.mesh_file = std::filesystem::absolute(path).string();
        p.mesh_scale = positive(scale, "Shape.mesh scale");
        p.mesh_split_convex = split_convex(split);
        return primitive_shape(p, "mesh");
      }, py::arg("path"), py::arg("scale") = 1.0, py::arg("split") = "none")
      .def_static("_mesh_arrays", [](py::array_t<double, py::array::c_style | py::array::forcecast> vertices,
                                     py::array_t<long, py::array::c_style | py::array::forcecast> faces,
                                     const std::string& tmp_path, const std::string& split) {
        if (vertices.ndim() != 2 || vertices.shape(1) != 3)
          throw py::value_error("Shape.mesh: expected vertices of shape (n, 3)");
        if (faces.ndim() != 2 || faces.shape(1) != 3)
          throw py::value_error("Shape.mesh: expected faces of shape (m, 3) (triangles, 0-based vertex indices)");
        const auto v = vertices.unchecked<2>();
        const auto f = faces.unchecked<2>();
        auto file = std::make_shared<TempFile>(TempFile{tmp_path});
        {
          std::ofstream out(tmp_path);
          out.precision(17);
          for (py::ssize_t i = 0; i < v.shape(0); ++i) {
            if (!std::isfinite(v(i, 0)) || !std::isfinite(v(i, 1)) || !std::isfinite(v(i, 2)))
              throw py::value_error("Shape.mesh: vertex " + std::to_string(i) + " is not finite");
            out << "v " << v(i, 0) << " " << v(i, 1) << " " << v(i, 2) << "\n";
          }
          for (py::ssize_t i = 0; i < f.shape(0); ++i) {
            for (int k = 0; k < 3; ++k)
              if (f(i, k) < 0 || f(i, k) >= v.shape(0))
                throw py::value_error("Shape.mesh: face " + std::to_string(i) + " has vertex index " +
                                      std::to_string(f(i, k)) + " outside 0.." + std::to_string(v.shape(0) - 1));
            out << "f " << f(i, 0) + 1 << " " << f(i, 1) + 1 << " " << f(i, 2) + 1 << "\n";
          }
        }
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Mesh, p.mesh_file = tmp_path;
        p.mesh_split_convex = split_convex(split);
        PyShape s{primitive_node(p, "mesh"), {file}, nullptr};
        s.cells();
        return s;
      });
}

// CSG: a & b, a | b, a - b, ~a, and a shape moved in its frame.
void def_csg(ShapeClass& shape) {
  auto intersection = [](const PyShape& a, const PyShape& b) {
    return combine(geo::CsgNode::Op::Intersection, {&a, &b}, "Shape.intersection");
  };
  auto union_ = [](const PyShape& a, const PyShape& b) {
    return combine(geo::CsgNode::Op::Union, {&a, &b}, "Shape.union");
  };
  auto difference = [](const PyShape& a, const PyShape& b) {
    return combine(geo::CsgNode::Op::Difference, {&a, &b}, "Shape.difference");
  };
  auto complement = [](const PyShape& a) { return combine(geo::CsgNode::Op::Complement, {&a}, "Shape.complement"); };
  shape.def("intersection", intersection, py::arg("other"), "the solid in both (also a & b)")
      .def("__and__", intersection)
      .def("union", union_, py::arg("other"), "the solid in either (also a | b); the parts become disjoint cells")
      .def("__or__", union_)
      .def("difference", difference, py::arg("other"), "the solid in this one and not in other (also a - b)")
      .def("__sub__", difference)
      .def("complement", complement, "everything outside this solid (also ~a); useful intersected with a bounded one")
      .def("__invert__", complement)
      .def("moved", [](const PyShape& a, py::handle pose) {
        PyShape s = a;
        s.geometry.reset();
        move(s.node, read_pose(pose, "Shape.moved pose"));
        s.cells();
        return s;
      }, py::arg("pose"), "This shape placed at `pose` in its frame (to build CSG of shapes off-centre).")
      .def_property_readonly("cells", [](const PyShape& s) { return s.cells().cells.size(); },
                             "how many disjoint convex-or-concave cells the engine splits it into");
}

// vcsim.interference, vcsim.mass_properties, vcsim.set_threads.
void def_queries(py::module_& m) {
  py::class_<PyInterference>(m, "Interference",
                             "The interference of two shapes: volume V (m^3), centroid (m, world), inertia J (m^5, "
                             "unit density, about the centroid, world axes), normal (a geometric estimate, from b "
                             "toward a), closed_form (whether an exact closed form served every cell pair).")
      .def_readonly("overlap", &PyInterference::overlap)
      .def_readonly("volume", &PyInterference::volume)
      .def_property_readonly("centroid", [](const PyInterference& i) { return array(i.centroid); })
      .def_property_readonly("inertia", [](const PyInterference& i) { return array(i.inertia); })
      .def_property_readonly("normal", [](const PyInterference& i) { return array(i.normal); })
      .def_readonly("closed_form", &PyInterference::closed_form)
      .def("__repr__", [](const PyInterference& i) {
        std::ostringstream r;
        r.precision(6);
        r << "<vcsim.Interference volume=" << i.volume << " centroid=(" << i.centroid.x() << ", " << i.centroid.y()
          << ", " << i.centroid.z() << ") closed_form=" << (i.closed_form ? "True" : "False") << ">";
        return r.str();
      });

  m.def(
      "interference",
      [](const PyShape& a, py::handle pose_a, const PyShape& b, py::handle pose_b, double tolerance) {
        const Pose pa = read_pose(pose_a, "interference pose_a"), pb = read_pose(pose_b, "interference pose_b");
        return query(a, pa, b, pb, tolerance);
      },
      py::arg("a"), py::arg("pose_a"), py::arg("b"), py::arg("pose_b"), py::arg("tolerance") = 1e-3,
      "The interference volume of shape a at pose_a and shape b at pose_b: an Interference (volume, centroid, "
      "inertia, normal, closed_form). A pose is a 4x4 homogeneous matrix or a (position, quaternion (w, x, y, z)) "
      "pair; `tolerance` is the column engine's relative accuracy (docs/geometry.md); closed forms are exact.");

  // For benchmarks/python/run.py: the same query n times in C++ (s per call), to split a Python call's time into the
  // engine's and the binding's.
  m.def("_time_interference", [](const PyShape& a, py::handle pose_a, const PyShape& b, py::handle pose_b, long n) {
    const Pose pa = read_pose(pose_a, "pose_a"), pb = read_pose(pose_b, "pose_b");
    double sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) sink += query(a, pa, b, pb, 1e-3).volume;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sink > 0 ? s / n : s / n;
  });

  py::class_<geo::MassProperties>(m, "MassProperties", "mass (kg), center_of_mass (m, shape frame), inertia "
                                                        "(kg m^2, about the centre of mass, shape axes)")
      .def_readonly("mass", &geo::MassProperties::mass)
      .def_property_readonly("center_of_mass", [](const geo::MassProperties& p) { return array(p.center_of_mass); })
      .def_property_readonly("inertia", [](const geo::MassProperties& p) { return array(p.inertia); });
  m.def(
      "set_threads",
      [](int n) {
        // TBB's cap for the column engine's parallel loops (the CLI's --threads); 0 lifts it.
        static std::unique_ptr<tbb::global_control> cap;
        if (n < 0) throw py::value_error("set_threads: expected n >= 0");
        cap.reset();
        if (n > 0) cap = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
      },
      py::arg("n"), "Caps the worker threads of the interference engine at n (the CLI's --threads); 0: no cap.");
  m.def(
      "mass_properties",
      [](const PyShape& s, double density, double tolerance) {
        if (!(density > 0) || !std::isfinite(density))
          throw py::value_error("mass_properties: expected a positive density (kg/m^3)");
        if (!(tolerance > 0) || !(tolerance < 1))
          throw py::value_error("mass_properties: expected 0 < tolerance < 1");
        return located([&] { return geo::mass_properties(s.cells(), density, tolerance); });
      },
      py::arg("shape"), py::arg("density"), py::arg("tolerance") = 1e-6,
      "Mass, centre of mass and inertia of a bounded shape of uniform density (kg/m^3).");
}

}  // namespace

void bind_shapes(py::module_& m) {
  ShapeClass shape(m, "Shape",
                   "A solid for the interference engine: a primitive (sphere, box, ...), a closed mesh, or a CSG "
                   "combination. Lengths in m; each primitive is centred on its frame's origin, axis z "
                   "(docs/scenario-format.md, \"Geometry\").");
  def_primitives(shape);
  def_csg(shape);
  def_queries(m);
}

}  // namespace vcsim::python
