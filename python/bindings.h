// The compiled part of the `vcsim` Python package (docs/python.md), shared by its binding files: the conversions
// between numpy and the engine's types, the exceptions, and the objects more than one file binds. The module itself:
// python/module.cpp; scenarios and simulations: simulation_bindings.cpp; shapes and the interference engine:
// shape_bindings.cpp.
#pragma once
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/scenario.h"
#include "geometry/interference.h"
#include "geometry/located_error.h"

namespace vcsim::python {

namespace py = pybind11;

// vcsim.InputError (a ValueError: bad input, "FILE:LINE:COLUMN: error: ...") and vcsim.SimulationError (a
// RuntimeError: a run that failed), set by module.cpp.
extern PyObject* g_input_error;
extern PyObject* g_simulation_error;

// Sets a Python exception from a C++ message. The message may quote the user's bytes (a YAML key that is not UTF-8):
// they are replaced, never the reason for an empty exception.
void set_error(PyObject* type, const std::string& message);

struct InputErrorThrown : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void input_error(const std::string& message) { throw InputErrorThrown(message); }

// f(), with the engine's located errors (loader, geometry, contact models) raised as vcsim.InputError.
template <class F>
auto located(F&& f) {
  try {
    return f();
  } catch (const LocatedError& e) {
    input_error(e.what());
  }
}

// Fresh float64 arrays (copies: the state moves under a view as soon as the simulation steps).
py::array_t<double> array(const double* values, py::ssize_t n);
py::array_t<double> array(const Vec3& v);
py::array_t<double> array_wxyz(const Quat& q);
py::array_t<double> array(const Mat3& m);
// n finite numbers from a numpy array or any sequence; `what` names the argument in the message.
void read_numbers(py::handle h, double* out, py::ssize_t n, const char* what);
Vec3 read_vec3(py::handle h, const char* what);
// A unit quaternion from (w, x, y, z); a zero one is an error, any other is normalised.
Quat read_quat(py::handle h, const char* what);
// A pose: a 4x4 homogeneous matrix, or a (position, quaternion w x y z) pair, or None (the identity).
Pose read_pose(py::handle h, const char* what);

struct PyScenario {
  std::shared_ptr<const Scenario> scenario;
};

struct PyInterference {
  bool overlap = false, closed_form = false;
  double volume = 0;
  Vec3 centroid = Vec3::Zero(), normal = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

// The interference of two sets of cells, summed over their pairs (parallel axes to the common centroid); a pair of
// single cells is one query.
PyInterference sum_interference(const std::vector<geo::Cell>& ca, const Pose& pa, const std::vector<geo::Cell>& cb,
                                const Pose& pb, double tolerance);

void bind_simulation(py::module_& m);
void bind_shapes(py::module_& m);

}  // namespace vcsim::python
