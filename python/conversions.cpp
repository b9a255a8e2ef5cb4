#include <cmath>

#include "python/bindings.h"

namespace vcsim::python {

PyObject* g_input_error = nullptr;
PyObject* g_simulation_error = nullptr;

void set_error(PyObject* type, const std::string& message) {
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (!text) {  // out of memory: whatever Python says
    PyErr_SetString(type, "(message lost)");
    return;
  }
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

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
Quat read_quat(py::handle h, const char* what) {
  double q[4];
  read_numbers(h, q, 4, what);
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(norm > 1e-12)) throw py::value_error(std::string(what) + ": expected a nonzero quaternion (w, x, y, z)");
  return Quat(q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm);
}

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

}  // namespace vcsim::python
