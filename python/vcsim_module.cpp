// The compiled part of the `vcsim` Python package (docs/python.md): scenarios, a stepping simulation and the
// interference engine on its own. The pure-Python part (python/vcsim/__init__.py) adds overrides as a dict, read()
// and the docs' examples; everything here is reached through it.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/build_world.h"
#include "engine/io/scenario_loader.h"
#include "engine/preflight.h"
#include "engine/simulation.h"
#include "geometry/interference.h"

#include <tbb/global_control.h>

namespace py = pybind11;
using namespace vcsim;

namespace {

// Raised for bad input; its message is the loader's "FILE:LINE:COLUMN: error: KEY.PATH: expected ...".
PyObject* g_input_error = nullptr;
PyObject* g_simulation_error = nullptr;

// Sets a Python exception from a C++ message. The message may quote the user's bytes (a YAML key that is not UTF-8):
// they are replaced, never the reason for an empty exception.
void set_error(PyObject* type, const std::string& message) {
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (!text) {  // out of memory: whatever Python says
    PyErr_SetString(type, "(message lost)");
    return;
  }
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

struct InputErrorThrown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void input_error(const std::string& message) { throw InputErrorThrown(message); }

// --- numbers in and out ---------------------------------------------------------------------------------------------

// A fresh float64 array of n values (a copy: the state moves under a view as soon as the simulation steps).
py::array_t<double> array(const double* values, py::ssize_t n) {
  py::array_t<double> out(n);
  std::copy(values, values + n, out.mutable_data());
  return out;
}
py::array_t<double> array(const Vec3& v) { return array(v.data(), 3); }
py::array_t<double> array_wxyz(const Quat& q) {
  const double wxyz[4] = {q.w(), q.x(), q.y(), q.z()};
  return array(wxyz, 4);
}
py::array_t<double> array(const Mat3& m) {
  py::array_t<double> out({3, 3});
  auto a = out.mutable_unchecked<2>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = m(i, j);
  return out;
}

// n finite numbers from a numpy array or any sequence; `what` names the argument in the message.
void read_numbers(py::handle h, double* out, py::ssize_t n, const char* what) {
  if (py::isinstance<py::array>(h)) {
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
    if (!a || a.size() != n)
      throw py::value_error(std::string(what) + ": expected " + std::to_string(n) + " numbers");
    std::copy(a.data(), a.data() + n, out);
  } else {
    PyObject* seq = py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h) ? nullptr : PySequence_Fast(h.ptr(), "");
    if (!seq) {
      PyErr_Clear();
      throw py::type_error(std::string(what) + ": expected a sequence of " + std::to_string(n) + " numbers, got " +
                           std::string(py::str(py::type::handle_of(h).attr("__name__"))));
    }
    const py::ssize_t size = PySequence_Fast_GET_SIZE(seq);
    if (size != n) {
      Py_DECREF(seq);
      throw py::value_error(std::string(what) + ": expected " + std::to_string(n) + " numbers, got " +
                            std::to_string(size));
    }
    PyObject** items = PySequence_Fast_ITEMS(seq);
    for (py::ssize_t i = 0; i < n; ++i) {
      out[i] = PyFloat_AsDouble(items[i]);
      if (out[i] == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_DECREF(seq);
        throw py::type_error(std::string(what) + ": expected numbers, item " + std::to_string(i) + " is not one");
      }
    }
    Py_DECREF(seq);
  }
  for (py::ssize_t i = 0; i < n; ++i)
    if (!std::isfinite(out[i]))
      throw py::value_error(std::string(what) + ": expected finite numbers, item " + std::to_string(i) + " is " +
                            (std::isnan(out[i]) ? "NaN" : "infinite"));
}
Vec3 read_vec3(py::handle h, const char* what) {
  Vec3 v;
  read_numbers(h, v.data(), 3, what);
  return v;
}
// A unit quaternion from (w, x, y, z); a zero one is an error, any other is normalised.
Quat read_quat(py::handle h, const char* what) {
  double q[4];
  read_numbers(h, q, 4, what);
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(norm > 1e-12)) throw py::value_error(std::string(what) + ": expected a nonzero quaternion (w, x, y, z)");
  return Quat(q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm);
}

// A pose: a 4x4 homogeneous matrix, or a (position, quaternion w x y z) pair, or None (the identity).
Pose read_pose(py::handle h, const char* what) {
  if (h.is_none()) return Pose{};
  if (py::isinstance<py::array>(h) && py::array(py::reinterpret_borrow<py::array>(h)).ndim() == 2) {
    double m[16];
    read_numbers(h, m, 16, what);
    Mat3 R;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R(i, j) = m[4 * i + j];
    // A rotation to the precision a user's matrix carries (a matrix built in float32 is 1e-7 off).
    if ((R.transpose() * R - Mat3::Identity()).norm() > 1e-6 || R.determinant() < 0 || std::abs(m[12]) > 0 ||
        std::abs(m[13]) > 0 || std::abs(m[14]) > 0 || m[15] != 1)
      throw py::value_error(std::string(what) +
                            ": expected a 4x4 homogeneous matrix [[R, p], [0, 0, 0, 1]] with R a rotation");
    return Pose{Vec3(m[3], m[7], m[11]), Quat(R).normalized()};
  }
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    const py::sequence s = py::reinterpret_borrow<py::sequence>(h);
    if (s.size() == 2) return Pose{read_vec3(s[0], what), read_quat(s[1], what)};
  }
  throw py::type_error(std::string(what) +
                       ": expected a 4x4 homogeneous matrix or a (position, quaternion (w, x, y, z)) pair");
}

// --- scenarios ------------------------------------------------------------------------------------------------------

struct PyScenario {
  std::shared_ptr<const Scenario> scenario;
};

template <class F>
auto located(F&& f) {
  try {
    return f();
  } catch (const LocatedError& e) {
    input_error(e.what());
  }
}

PyScenario load(const std::string& path, const std::vector<std::string>& overrides) {
  return located([&] { return PyScenario{std::make_shared<Scenario>(load_scenario(path, overrides))}; });
}
PyScenario loads(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  return located(
      [&] { return PyScenario{std::make_shared<Scenario>(load_scenario_text(text, name, overrides))}; });
}

// --- interference sums ----------------------------------------------------------------------------------------------

struct PyInterference {
  bool overlap = false, closed_form = false;
  double volume = 0;
  Vec3 centroid = Vec3::Zero(), normal = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

// The interference of two sets of cells, summed over their pairs (parallel axes to the common centroid); a pair of
// single cells is one query.
PyInterference sum_interference(const std::vector<geo::Cell>& ca, const Pose& pa, const std::vector<geo::Cell>& cb,
                                const Pose& pb, double tolerance) {
  PyInterference out;
  out.closed_form = true;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (const auto& x : ca)
    for (const auto& y : cb) {
      const geo::Interference q = geo::interference(x, pa, y, pb, {tolerance});
      if (!q.overlap) continue;
      // The column engine counts its columns; a closed form evaluates none.
      out.closed_form = out.closed_form && q.columns == 0;
      if (ca.size() == 1 && cb.size() == 1) {
        out.overlap = true;
        out.volume = q.volume, out.centroid = q.centroid, out.inertia = q.inertia, out.normal = q.normal_estimate;
        return out;
      }
      out.overlap = true;
      out.volume += q.volume;
      first += q.volume * q.centroid;
      second += q.inertia + q.volume * (q.centroid.squaredNorm() * Mat3::Identity() - q.centroid * q.centroid.transpose());
      out.normal += q.volume * q.normal_estimate;
    }
  if (out.volume > 0) {
    out.centroid = first / out.volume;
    out.inertia = second - out.volume * (out.centroid.squaredNorm() * Mat3::Identity() -
                                         out.centroid * out.centroid.transpose());
    if (out.normal.norm() > 0) out.normal.normalize();
  }
  if (!out.overlap) out.closed_form = false;
  return out;
}

// --- simulation -----------------------------------------------------------------------------------------------------

class PySimulation {
  // One user at a time: stepping releases the GIL, so another Python thread could reach this simulation meanwhile.
  mutable std::atomic<bool> busy_{false};
  struct Busy {
    explicit Busy(const PySimulation& s) : s(s) {
      if (s.busy_.exchange(true))
        throw std::runtime_error("Simulation: in use by another thread (a step or run is in progress)");
    }
    ~Busy() { s.busy_ = false; }
    const PySimulation& s;
  };

 public:
  explicit PySimulation(const PyScenario& s) : scenario_(s.scenario) {
    located([&] {
      built_ = std::make_unique<BuiltWorld>(build_world(*scenario_));
      preflight_ = preflight(*scenario_, *built_);
      return 0;
    });
    for (const auto& w : preflight_.warnings) warnings_.push_back(w.text());
    RunOptions options;
    options.warnings = warnings_;
    options.guard = &preflight_.guard;
    sim_ = std::make_unique<Simulation>(*scenario_, *built_, options);
  }

  double time() const { return sim_->time(); }

  // The end an adaptive step lands on: the scenario's duration while it lies ahead, else none.
  double default_end() const {
    return sim_->time() < scenario_->duration ? scenario_->duration : std::numeric_limits<double>::infinity();
  }

  void check() const {
    if (sim_->failed()) {
      set_error(g_simulation_error, sim_->failure_message());
      throw py::error_already_set();
    }
  }

  // Steps while more() says so, without the GIL, taking it back every kChunk steps to let Ctrl-C
  // (KeyboardInterrupt) and other Python signal handlers through. False when the run failed.
  template <class More>
  bool advance(More&& more, double end) {
    constexpr long kChunk = 2000;  // ~7 ms of ball_on_table's steps: prompt enough, and the GIL round trip is free
    for (;;) {
      bool ok = true, done = false;
      {
        py::gil_scoped_release release;
        for (long i = 0; i < kChunk && ok; ++i) {
          if (!more()) {
            done = true;
            break;
          }
          ok = sim_->step(end);
        }
      }
      if (!ok) return false;
      if (done) return true;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
  }

  void step(long n) {
    if (n < 0) throw py::value_error("step: expected n >= 0, got " + std::to_string(n));
    const Busy busy(*this);
    check();
    if (n == 1) {  // the control loop's call: no chunking
      bool ok;
      {
        py::gil_scoped_release release;
        ok = sim_->step(default_end());
      }
      if (!ok) check();
      return;
    }
    long taken = 0;
    if (!advance([&] { return taken++ < n; }, default_end())) check();
  }

  py::dict run(std::optional<double> until, py::object output_path) {
    // A str or an os.PathLike (pathlib.Path), as open() takes.
    const std::optional<std::string> output =
        output_path.is_none() ? std::nullopt
                              : std::optional<std::string>(
                                    py::str(py::module_::import("os").attr("fspath")(output_path)).cast<std::string>());
    const double end = until ? *until : scenario_->duration;
    if (!std::isfinite(end)) throw py::value_error("run: expected a finite time `until`");
    if (!scenario_->adaptive && end / scenario_->step > 1e15)  // the step count must fit a long
      throw py::value_error("run: `until` is more than 1e15 steps away");
    const Busy busy(*this);
    check();
    if (output) {
      try {
        sim_->open_output(*output);
      } catch (const std::exception& e) {
        set_error(PyExc_OSError, e.what());
        throw py::error_already_set();
      }
    }
    const long last = scenario_->adaptive ? 0 : std::lround(end / scenario_->step);
    try {
      if (scenario_->adaptive)
        advance([&] { return sim_->time() < end; }, end);
      else
        advance([&] { return sim_->steps_taken() < last; }, end);
    } catch (py::error_already_set&) {  // Ctrl-C: the output keeps every sample so far, marked "interrupted"
      sim_->finish(true);
      throw;
    }
    // Closes the output (if any) with the run's attributes, as `vcsim run` does.
    const RunSummary s = sim_->finish();
    check();
    py::dict summary;
    summary["status"] = s.status;
    summary["time"] = s.sim_time;
    summary["steps"] = s.steps;
    summary["samples"] = s.samples;
    summary["wall_time"] = s.wall_time;
    summary["max_energy_increase"] = s.max_energy_increase;
    return summary;
  }

  int body_index(const std::string& name) const {
    const auto& bodies = sim_->world().bodies;
    for (size_t i = 0; i < bodies.size(); ++i)
      if (bodies[i].name == name) return static_cast<int>(i);
    std::string known;
    for (const auto& b : bodies) known += (known.empty() ? "'" : ", '") + b.name + "'";
    throw py::key_error("no body '" + name + "' (bodies: " + known + ")");
  }
  std::vector<std::string> body_names() const {
    std::vector<std::string> names;
    for (const auto& b : sim_->world().bodies) names.push_back(b.name);
    return names;
  }
  contact::BodyKinematics kinematics(int body) const {
    const Busy busy(*this);
    return sim_->world().kinematics(sim_->state(), body, sim_->time());
  }
  // The state offset of a free body, for the setters; a fixed body's state is the scenario's.
  int free_offset(int body, const char* what) const {
    const RigidBody& b = sim_->world().bodies[body];
    if (b.state_offset < 0) throw py::value_error(std::string(what) + ": body '" + b.name + "' is fixed");
    return b.state_offset;
  }
  void set_position(int body, py::handle v) {
    const Busy busy(*this);
    const Vec3 p = read_vec3(v, "position");
    body_position(sim_->mutable_state(), free_offset(body, "position")) = p;
    sim_->state_changed();
  }
  void set_quaternion(int body, py::handle v) {
    const Busy busy(*this);
    const Quat q = read_quat(v, "quaternion");
    body_quaternion(sim_->mutable_state(), free_offset(body, "quaternion")) << q.w(), q.x(), q.y(), q.z();
    sim_->state_changed();
  }
  void set_velocity(int body, py::handle v) {
    const Busy busy(*this);
    const Vec3 p = read_vec3(v, "velocity");
    body_velocity(sim_->mutable_state(), free_offset(body, "velocity")) = p;
    sim_->state_changed();
  }
  void set_angular_velocity(int body, py::handle v) {
    const Busy busy(*this);
    const Vec3 p = read_vec3(v, "angular_velocity");
    body_angular_velocity(sim_->mutable_state(), free_offset(body, "angular_velocity")) = p;
    sim_->state_changed();
  }
  void set_force(int body, py::handle v) {
    const Busy busy(*this);
    const Vec3 f = read_vec3(v, "force");
    free_offset(body, "force");
    sim_->set_external_load(body, f, sim_->world().bodies[body].external_torque);
  }
  void set_torque(int body, py::handle v) {
    const Busy busy(*this);
    const Vec3 tau = read_vec3(v, "torque");
    free_offset(body, "torque");
    sim_->set_external_load(body, sim_->world().bodies[body].external_force, tau);
  }

  py::list contacts() {
    const Busy busy(*this);
    const auto& results = sim_->contact_results();
    const World& world = sim_->world();
    const VecX& x = sim_->state();
    const double t = sim_->time();
    py::list out;
    for (size_t c = 0; c < world.contacts.size(); ++c) {
      const ContactSlot& slot = world.contacts[c];
      const contact::ContactResult& r = results[c];
      py::dict d;
      d["name"] = slot.name;
      d["model"] = slot.model;
      d["body_i"] = world.bodies[slot.body_i].name;
      d["body_j"] = world.bodies[slot.body_j].name;
      d["in_contact"] = r.in_contact;
      d["force"] = array(r.force);
      d["point"] = array(r.point);
      d["couple"] = array(r.couple);
      // The interference of the two bodies' cells at the current poses, at the scenario's geometry tolerance: V,
      // centroid and J (about the centroid, world axes) of the volumetric model.
      const PyInterference q = sum_interference(world.bodies[slot.body_i].geometry.cells, world.kinematics(x, slot.body_i, t).pose,
                                                world.bodies[slot.body_j].geometry.cells, world.kinematics(x, slot.body_j, t).pose,
                                                scenario_->geometry_tolerance);
      d["volume"] = q.volume;
      d["centroid"] = array(q.centroid);
      d["inertia"] = array(q.inertia);
      d["normal"] = array(q.normal);
      py::dict channels;
      const auto layout = slot.pair->channels();
      size_t k = 0;
      for (const auto& ch : layout) {
        if (k + ch.width > r.channels.size()) break;
        if (ch.width == 1)
          channels[py::str(ch.name)] = r.channels[k];
        else
          channels[py::str(ch.name)] = array(r.channels.data() + k, ch.width);
        k += ch.width;
      }
      if (channels.contains("normal")) d["normal"] = channels["normal"];  // the model's own normal
      d["channels"] = channels;
      out.append(d);
    }
    return out;
  }

  py::array_t<double> state() const {
    const Busy busy(*this);
    return array(sim_->state().data(), sim_->state().size());
  }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const Scenario& scenario() const { return *scenario_; }
  const World& world() const { return sim_->world(); }

 private:
  std::shared_ptr<const Scenario> scenario_;
  std::unique_ptr<BuiltWorld> built_;
  PreflightReport preflight_;
  std::vector<std::string> warnings_;
  std::unique_ptr<Simulation> sim_;
};

// A body of a simulation, by index: reads and writes go to the simulation's current state.
struct PyBody {
  std::shared_ptr<PySimulation> sim;
  int index;
};

// --- shapes and the interference engine ----------------------------------------------------------------------------

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

}  // namespace

PYBIND11_MODULE(_vcsim, m) {
  m.doc() = "vcsim's compiled core; use the `vcsim` package (docs/python.md).";
  static py::exception<InputErrorThrown> input_exc(m, "InputError", PyExc_ValueError);
  input_exc.doc() = "Bad input: a scenario, an override or a shape. The message is \"FILE:LINE:COLUMN: error: ...\".";
  g_input_error = input_exc.ptr();
  static py::exception<std::runtime_error> sim_exc(m, "SimulationError", PyExc_RuntimeError);
  g_simulation_error = sim_exc.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputErrorThrown& e) {
      set_error(g_input_error, e.what());
    } catch (const LocatedError& e) {
      set_error(g_input_error, e.what());
    } catch (const py::builtin_exception&) {  // ValueError, TypeError, KeyError...: pybind11's own translator
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::exception& e) {  // anything else the engine throws: a RuntimeError with its message
      set_error(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<PyScenario>(m, "Scenario", "A validated scenario (docs/scenario-format.md); make one with vcsim.load().")
      .def_property_readonly("name", [](const PyScenario& s) { return s.scenario->name; })
      .def_property_readonly("file", [](const PyScenario& s) { return s.scenario->source_file; })
      .def_property_readonly("text", [](const PyScenario& s) { return s.scenario->source_text; },
                             "The YAML after the overrides, as stored in an output file.")
      .def_property_readonly("duration", [](const PyScenario& s) { return s.scenario->duration; }, "s")
      .def_property_readonly("step", [](const PyScenario& s) { return s.scenario->step; }, "s")
      .def_property_readonly("integrator", [](const PyScenario& s) { return s.scenario->integrator; })
      .def_property_readonly("bodies",
                             [](const PyScenario& s) {
                               std::vector<std::string> names;
                               for (const auto& b : s.scenario->bodies) names.push_back(b.name);
                               return names;
                             })
      .def("__repr__", [](const PyScenario& s) {
        return "<vcsim.Scenario '" + s.scenario->name + "' from " + s.scenario->source_file + ">";
      });

  m.def("_load", &load, py::arg("path"), py::arg("overrides"));
  m.def("_loads", &loads, py::arg("text"), py::arg("name"), py::arg("overrides"));

  py::class_<PyBody>(m, "Body",
                     "A body of a Simulation. Reads give copies of the current state (numpy float64, world frame, "
                     "of the centre of mass); writes change it at once (finite values only) and hold for the next "
                     "step.")
      .def_property_readonly("name", [](const PyBody& b) { return b.sim->world().bodies[b.index].name; })
      .def_property_readonly("fixed", [](const PyBody& b) { return b.sim->world().bodies[b.index].fixed; })
      .def_property_readonly("mass", [](const PyBody& b) { return b.sim->world().bodies[b.index].mass; }, "kg")
      .def_property_readonly(
          "inertia", [](const PyBody& b) { return array(b.sim->world().bodies[b.index].inertia_body); },
          "kg m^2, about the centre of mass, body axes")
      .def_property("position", [](const PyBody& b) { return array(b.sim->kinematics(b.index).pose.position); },
                    [](PyBody& b, py::handle v) { b.sim->set_position(b.index, v); }, "m, centre of mass, world")
      .def_property("quaternion",
                    [](const PyBody& b) { return array_wxyz(b.sim->kinematics(b.index).pose.rotation); },
                    [](PyBody& b, py::handle v) { b.sim->set_quaternion(b.index, v); },
                    "(w, x, y, z), body (centre-of-mass) frame to world; set: normalised")
      .def_property("velocity", [](const PyBody& b) { return array(b.sim->kinematics(b.index).velocity); },
                    [](PyBody& b, py::handle v) { b.sim->set_velocity(b.index, v); }, "m/s, centre of mass, world")
      .def_property("angular_velocity",
                    [](const PyBody& b) { return array(b.sim->kinematics(b.index).angular_velocity); },
                    [](PyBody& b, py::handle v) { b.sim->set_angular_velocity(b.index, v); }, "rad/s, world")
      .def_property("force", [](const PyBody& b) { return array(b.sim->world().bodies[b.index].external_force); },
                    [](PyBody& b, py::handle v) { b.sim->set_force(b.index, v); },
                    "N, world frame, at the centre of mass; holds until set again (besides the scenario's loads)")
      .def_property("torque", [](const PyBody& b) { return array(b.sim->world().bodies[b.index].external_torque); },
                    [](PyBody& b, py::handle v) { b.sim->set_torque(b.index, v); },
                    "N m, world frame; holds until set again")
      .def("__repr__", [](const PyBody& b) { return "<vcsim.Body '" + b.sim->world().bodies[b.index].name + "'>"; });

  py::class_<PySimulation, std::shared_ptr<PySimulation>>(
      m, "Simulation",
      "A run of a scenario, stepped from Python.\n\n"
      "Simulation(scenario) builds the world at t = 0 (the scenario's initial state). step(n) and run(until) advance "
      "it with the scenario's integrator, exactly as `vcsim run` does (the same code path); body(name) reads and "
      "sets a body's state and external load, contacts gives every contact pair's result at the current state.")
      .def(py::init<const PyScenario&>(), py::arg("scenario"))
      .def_property_readonly("time", &PySimulation::time, "s, the current simulated time")
      .def("step", &PySimulation::step, py::arg("n") = 1,
           "Takes n accepted steps (fixed step: n * step seconds). Releases the GIL. Raises SimulationError when "
           "the run fails (a blow-up, an energy explosion), naming the time, bodies and contacts.")
      .def("run", &PySimulation::run, py::arg("until") = py::none(), py::arg("output") = py::none(),
           "Steps until time `until` (default: the scenario's duration). With `output`, writes an HDF5 file "
           "(docs/output-format.md) through the CLI's writer from the current time to `until`. Returns the summary "
           "since the start (status, time, steps, samples, wall_time, max_energy_increase). Releases the GIL; "
           "Ctrl-C raises KeyboardInterrupt within a few ms and leaves the output closed, status \"interrupted\".")
      .def_property_readonly("bodies", &PySimulation::body_names, "the bodies' names, in state order")
      .def(
          "body",
          [](const std::shared_ptr<PySimulation>& s, const std::string& name) {
            return PyBody{s, s->body_index(name)};
          },
          py::arg("name"), "The Body of that name (KeyError naming the bodies when there is none).")
      .def_property_readonly("contacts", &PySimulation::contacts,
                             "Every contact pair at the current state: a list of dicts with name, model, body_i, "
                             "body_j, in_contact, force (on body i, N), point (m), couple (N m), volume (m^3), "
                             "centroid (m), inertia (J, m^5, about the centroid), normal (from j toward i) and the "
                             "model's channels (dict, docs/output-format.md).")
      .def_property_readonly("state", &PySimulation::state,
                             "A copy of the whole state vector (docs/conventions.md, \"State vector\")")
      .def_property_readonly("warnings", &PySimulation::warnings, "the preflight's warnings (docs/reliability.md)")
      .def("__repr__", [](const PySimulation& s) {
        std::ostringstream r;
        r << "<vcsim.Simulation '" << s.scenario().name << "' at t = " << s.time() << " s>";
        return r.str();
      });

  py::class_<PyShape>(m, "Shape",
                      "A solid for the interference engine: a primitive (sphere, box, ...), a closed mesh, or a CSG "
                      "combination. Lengths in m; each primitive is centred on its frame's origin, axis z "
                      "(docs/scenario-format.md, \"Geometry\").")
      .def_static("sphere", [](double r) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Sphere, p.radius = positive(r, "Shape.sphere radius");
        return primitive_shape(p, "sphere");
      }, py::arg("radius"))
      .def_static("box", [](py::handle size) {
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Box, p.size = read_vec3(size, "Shape.box size");
        for (int i = 0; i < 3; ++i) positive(p.size[i], "Shape.box size");
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
        p.kind = geo::PrimitiveKind::Ellipsoid, p.radii = read_vec3(radii, "Shape.ellipsoid radii");
        for (int i = 0; i < 3; ++i) positive(p.radii[i], "Shape.ellipsoid radii");
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
      .def_static("_mesh_file", [](const std::string& path, double scale) {
        if (!std::filesystem::exists(path)) throw py::value_error("Shape.mesh: no file '" + path + "'");
        geo::Primitive p;
        p.kind = geo::PrimitiveKind::Mesh, p.mesh_file = std::filesystem::absolute(path).string();
        p.mesh_scale = positive(scale, "Shape.mesh scale");
        return primitive_shape(p, "mesh");
      }, py::arg("path"), py::arg("scale") = 1.0)
      .def_static("_mesh_arrays", [](py::array_t<double, py::array::c_style | py::array::forcecast> vertices,
                                     py::array_t<long, py::array::c_style | py::array::forcecast> faces,
                                     const std::string& tmp_path) {
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
        PyShape s{primitive_node(p, "mesh"), {file}, nullptr};
        s.cells();
        return s;
      })
      .def("intersection", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Intersection, {&a, &b}, "Shape.intersection");
      }, py::arg("other"), "the solid in both (also a & b)")
      .def("__and__", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Intersection, {&a, &b}, "Shape.intersection");
      })
      .def("union", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Union, {&a, &b}, "Shape.union");
      }, py::arg("other"), "the solid in either (also a | b); the parts become disjoint cells")
      .def("__or__", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Union, {&a, &b}, "Shape.union");
      })
      .def("difference", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Difference, {&a, &b}, "Shape.difference");
      }, py::arg("other"), "the solid in this one and not in other (also a - b)")
      .def("__sub__", [](const PyShape& a, const PyShape& b) {
        return combine(geo::CsgNode::Op::Difference, {&a, &b}, "Shape.difference");
      })
      .def("complement", [](const PyShape& a) {
        return combine(geo::CsgNode::Op::Complement, {&a}, "Shape.complement");
      }, "everything outside this solid (also ~a); useful intersected with a bounded one")
      .def("__invert__", [](const PyShape& a) {
        return combine(geo::CsgNode::Op::Complement, {&a}, "Shape.complement");
      })
      .def("moved", [](const PyShape& a, py::handle pose) {
        PyShape s = a;
        s.geometry.reset();
        move(s.node, read_pose(pose, "Shape.moved pose"));
        s.cells();
        return s;
      }, py::arg("pose"), "This shape placed at `pose` in its frame (to build CSG of shapes off-centre).")
      .def_property_readonly("cells", [](const PyShape& s) { return s.cells().cells.size(); },
                             "how many disjoint convex-or-concave cells the engine splits it into");

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
