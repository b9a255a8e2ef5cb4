// The compiled part of the `vcsim` Python package (docs/python.md): scenarios, a stepping simulation and the
// interference engine on its own. The pure-Python part (python/vcsim/__init__.py) adds overrides as a dict, read()
// and the docs' examples; everything here is reached through it.
#include "python/bindings.h"

using namespace vcsim;
using namespace vcsim::python;

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

  bind_simulation(m);
  bind_shapes(m);
}
