// The table and the summary: see tools/sweep/table.h.
#include "tools/sweep/table.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace vcsim::sweep {
namespace {

hid_t utf8_string_type() {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_attr_str(hid_t obj, const char* name, const std::string& v) {
  const hid_t t = utf8_string_type();
  const hid_t sp = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  const char* p = v.c_str();
  H5Awrite(a, t, &p);
  H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
}

void write_attr_num(hid_t obj, const char* name, double v) {
  const hid_t sp = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  H5Sclose(sp);
}

// A one-dimensional dataset of n values; the caller closes it.
hid_t write_column(hid_t group, const std::string& name, hid_t file_type, hid_t mem_type, const void* data, size_t n) {
  const hsize_t dims[1] = {hsize_t(n)};
  const hid_t sp = H5Screate_simple(1, dims, nullptr);
  const hid_t d = H5Dcreate2(group, name.c_str(), file_type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error("cannot create dataset " + name);
  if (n > 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw std::runtime_error("cannot write dataset " + name);
  H5Sclose(sp);
  return d;
}

hid_t write_doubles(hid_t group, const std::string& name, const std::vector<double>& v) {
  return write_column(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), v.size());
}

hid_t write_int64s(hid_t group, const std::string& name, const std::vector<int64_t>& v) {
  return write_column(group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data(), v.size());
}

std::string outcome_description(const Outcome& o, const std::string& col) {
  if (o.kind == "final_pose") return "final pose of body " + o.body + " (" + col.substr(o.name.size() + 1) + ")";
  if (o.kind == "energy_dissipated") return "total energy at t = 0 minus total energy at the end (J)";
  if (o.kind == "event") return "time of the first sample at which " + o.event + " holds (s); NaN if never";
  if (o.kind == "expression") return "an expression of the parameters and outcomes";
  std::string d = o.kind + " of " + o.series.text + " over the output samples";
  if (!o.from.empty()) d += " from the time of " + o.from;
  return d;
}

std::string outcome_units(const Outcome& o, const std::string& col) {
  if (o.kind == "event") return "s";
  if (o.kind == "energy_dissipated") return "J";
  if (o.kind == "final_pose") return col.size() >= 2 && col[col.size() - 2] == 'q' ? "1" : "m";
  const std::string& d = o.series.dataset;
  if (d == "/time") return "s";
  if (d.rfind("/energy/", 0) == 0) return "J";
  if (d.find("/position") != std::string::npos || d.find("/point") != std::string::npos) return "m";
  if (d.find("/angular_velocity") != std::string::npos) return "rad/s";
  if (d.find("/velocity") != std::string::npos) return "m/s";
  if (d.find("/orientation") != std::string::npos) return "1";
  if (d.find("/force") != std::string::npos) return "N";
  if (d.find("/torque") != std::string::npos) return "N*m";
  return "";
}

// The root attributes: what was swept, from which files, with which vcsim.
void write_attributes(hid_t f, const Campaign& c, const Paths& P, long completed, double wall) {
  const Spec& s = c.spec;
  write_attr_str(f, "format", "vcsim-sweep");
  write_attr_num(f, "format_version", 1);
  write_attr_str(f, "sweep_name", s.name);
  write_attr_str(f, "sweep_file", s.file);
  write_attr_str(f, "sweep", s.text);
  write_attr_str(f, "base_scenario_file", s.base);
  write_attr_str(f, "base_scenario", s.base_text);
  write_attr_str(f, "vcsim_version", VCSIM_VERSION);
  write_attr_str(f, "git_revision", VCSIM_GIT_REVISION);
  write_attr_num(f, "seed", double(s.seed));
  write_attr_num(f, "runs", double(c.runs));
  write_attr_num(f, "completed", double(completed));
  write_attr_str(f, "pass_expression", s.pass_text);
  std::vector<std::string> pnames;
  for (const auto& p : s.params) pnames.push_back(p.name);
  write_attr_str(f, "parameters", join(pnames, ","));
  write_attr_str(f, "outcomes", join(s.outcome_columns, ","));
  write_attr_str(f, "fixed_overrides", join(s.fixed_overrides(), "\n"));
  write_attr_num(f, "wall_time_s", wall);
  if (s.keep_series) write_attr_str(f, "series_dir", fs::path(P.work).filename().string());
}

// The table proper, /runs: a column a parameter or outcome, row i run i. Returns how many runs pass.
long write_runs(hid_t f, const Campaign& c, const std::vector<RunResult>& results) {
  const Spec& s = c.spec;
  const size_t n = results.size();
  const hid_t g = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<std::string> columns = {"run_index"};
  std::vector<int64_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = results[i].index;
  hid_t d = write_int64s(g, "run_index", idx);
  write_attr_str(d, "description", "run number: row i is run i");
  H5Dclose(d);
  for (size_t k = 0; k < s.params.size(); ++k) {
    const Parameter& p = s.params[k];
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = c.values[results[i].index][k];
    d = write_doubles(g, p.name, v);
    write_attr_str(d, "kind", "parameter");
    write_attr_str(d, "path", p.path);
    write_attr_str(d, "distribution", p.kind);
    write_attr_str(d, "description", "scenario value " + p.path + " (" + p.kind + ")");
    H5Dclose(d);
    columns.push_back(p.name);
  }
  size_t col = 0;
  for (const auto& o : s.outcomes)
    for (const auto& name : o.columns) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = results[i].values[col];
      d = write_doubles(g, name, v);
      write_attr_str(d, "kind", "outcome");
      write_attr_str(d, "description", outcome_description(o, name));
      write_attr_str(d, "units", outcome_units(o, name));
      H5Dclose(d);
      columns.push_back(name);
      ++col;
    }
  long passed = 0;
  if (s.pass) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) passed += v[i] = results[i].values[col] != 0;
    d = write_column(g, "pass", H5T_STD_U8LE, H5T_NATIVE_UINT8, v.data(), n);
    write_attr_str(d, "kind", "outcome");
    write_attr_str(d, "description", "1 if the predicate '" + s.pass_text + "' holds");
    H5Dclose(d);
    columns.push_back("pass");
  }
  const hid_t t = utf8_string_type();
  std::vector<const char*> status(n);
  for (size_t i = 0; i < n; ++i) status[i] = results[i].status.c_str();
  d = write_column(g, "status", t, t, status.data(), n);
  write_attr_str(d, "description", "\"completed\" or \"failed: ...\" (then the outcomes are NaN)");
  H5Dclose(d);
  H5Tclose(t);
  columns.push_back("status");
  write_attr_str(g, "columns", join(columns, ","));
  H5Gclose(g);
  return passed;
}

// Not part of the table: how the campaign ran (differs between runs of the same sweep).
void write_log(hid_t f, const std::vector<RunResult>& results) {
  const hid_t lg = H5Gcreate2(f, "log", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<double> w(results.size());
  std::vector<int64_t> rk(results.size());
  for (size_t i = 0; i < results.size(); ++i) w[i] = results[i].wall, rk[i] = results[i].rank;
  H5Dclose(write_doubles(lg, "wall_time_s", w));
  H5Dclose(write_int64s(lg, "rank", rk));
  H5Gclose(lg);
}

// With keep_series: /series/run_NNNNNN, an external link to the root of each run's own output file
// (relative, so the table and OUT.runs/ move together).
void link_series(hid_t f, const Paths& P, const std::vector<RunResult>& results) {
  const hid_t sg = H5Gcreate2(f, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const std::string rel_dir = fs::path(P.work).filename().string();
  for (const auto& r : results) {
    if (!fs::exists(P.series(r.index))) continue;
    const std::string name = fs::path(P.series(r.index)).stem().string();
    const std::string target = rel_dir + "/" + name + ".h5";
    H5Lcreate_external(target.c_str(), "/", sg, name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  }
  H5Gclose(sg);
}

}  // namespace

void write_table(const Campaign& c, const Paths& P, const std::vector<RunResult>& results, double wall) {
  const std::string tmp = P.output + ".tmp-" + std::to_string(getpid());
  const hid_t f = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot create " + tmp);
  long completed = 0;
  for (const auto& r : results) completed += r.status == "completed";
  write_attributes(f, c, P, completed, wall);
  const long passed = write_runs(f, c, results);
  write_attr_num(f, "passed", double(passed));
  write_log(f, results);
  if (c.spec.keep_series) link_series(f, P, results);
  if (H5Fclose(f) < 0) throw std::runtime_error("cannot close " + tmp);
  if (std::rename(tmp.c_str(), P.output.c_str()) != 0)
    throw std::runtime_error("cannot rename " + tmp + " to " + P.output + ": " + std::strerror(errno));
}

void print_summary(const Campaign& c, const Paths& P, const std::vector<RunResult>& results, double wall) {
  const Spec& s = c.spec;
  const size_t ncols = s.outcome_columns.size();
  long completed = 0, failed = 0, passed = 0;
  for (const auto& r : results) (r.status == "completed" ? completed : failed)++;
  if (s.pass)
    for (const auto& r : results) passed += r.values.back() != 0;
  std::cout << "summary    " << c.runs << " runs: " << completed << " completed, " << failed << " failed";
  if (s.pass) std::cout << "; pass (" << s.pass_text << "): " << passed << " of " << c.runs;
  std::cout << "\nwall time  " << fmt_short(wall) << " s\n";
  for (size_t k = 0; k < ncols; ++k) {
    if (s.pass && k + 1 == ncols) break;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long cnt = 0;
    for (const auto& r : results)
      if (r.status == "completed" && !std::isnan(r.values[k])) {
        lo = std::min(lo, r.values[k]), hi = std::max(hi, r.values[k]), sum += r.values[k], ++cnt;
      }
    std::printf("  %-22s min %-12s mean %-12s max %-12s (%ld of %ld runs)\n", s.outcome_columns[k].c_str(),
                cnt ? fmt_short(lo).c_str() : "-", cnt ? fmt_short(sum / double(cnt)).c_str() : "-",
                cnt ? fmt_short(hi).c_str() : "-", cnt, completed);
  }
  std::cout << "output     " << P.output << (s.keep_series ? " (series in " + P.work + "/)" : "") << "\n";
  for (const auto& r : results)
    if (r.status != "completed") std::cerr << "run " << r.index << ": " << r.status << "\n";
}

}  // namespace vcsim::sweep
