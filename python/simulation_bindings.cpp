// Scenarios and simulations from Python (docs/python.md): vcsim.load/loads, vcsim.Simulation and its bodies.
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "engine/build_world.h"
#include "engine/io/scenario_loader.h"
#include "engine/preflight.h"
#include "engine/simulation.h"
#include "python/bindings.h"

namespace vcsim::python {
namespace {

PyScenario load(const std::string& path, const std::vector<std::string>& overrides) {
  return located([&] { return PyScenario{std::make_shared<Scenario>(load_scenario(path, overrides))}; });
}
PyScenario loads(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  return located(
      [&] { return PyScenario{std::make_shared<Scenario>(load_scenario_text(text, name, overrides))}; });
}

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

}  // namespace

void bind_simulation(py::module_& m) {
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
}

}  // namespace vcsim::python
