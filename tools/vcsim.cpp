// vcsim: the command-line front door. Exit status: 0 success, 2 bad input, 1 runtime failure.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "contact/model_params.h"
#include "contact/parameters.h"
#include "engine/input_error.h"
#include "engine/preflight.h"
#include "engine/io/scenario_loader.h"
#include "engine/simulation.h"
#include "engine/step_guard.h"
#include "geometry/located_error.h"
#include "tools/sweep/sweep.h"
#include "tools/vcexport.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_sigint(int) { g_stop = 1; }

std::string format_duration(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "--";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(s) % 60);
  return buf;
}

// "100000 steps of 5e-05 s (rk3)", or for an adaptive run "8698 accepted steps of 4.4e-07 .. 0.032 s, median
// 0.00032 s, 118 rejected (dopri5, rel_tol 1e-06)".
std::string describe_steps(const vcsim::Scenario& scenario, const vcsim::RunSummary& s) {
  std::ostringstream out;
  out.precision(2);
  if (!scenario.adaptive) {
    out.precision(6);
    out << s.steps << " steps of " << scenario.step << " s (" << scenario.integrator << ")";
  } else {
    out << s.steps << " accepted steps of " << s.min_step << " .. " << s.max_step << " s, median " << s.median_step
        << " s, " << s.rejected_steps << " rejected (" << scenario.integrator << ", rel_tol "
        << scenario.adaptive_settings.rel_tol << ")";
  }
  return out.str();
}

// A progress bar on a terminal; a plain line every tenth of the run otherwise.
struct ProgressReporter {
  bool tty = isatty(fileno(stderr));
  int last_decile = -1;
  void operator()(const vcsim::Progress& p) {
    const double frac = p.duration > 0 ? p.sim_time / p.duration : 1;
    const double rtf = p.wall_time > 0 ? p.sim_time / p.wall_time : 0;
    const double eta = frac > 0 ? p.wall_time * (1 - frac) / frac : NAN;
    if (tty) {
      const int width = 30, filled = int(frac * width + 0.5);
      std::fprintf(stderr, "\r[%s%s] t = %.4g / %.4g s  step %.2g s  %.2fx real time  ETA %s   ",
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), p.sim_time,
                   p.duration, p.step, rtf, format_duration(eta).c_str());
      if (frac >= 1) std::fprintf(stderr, "\n");
    } else {
      const int decile = int(frac * 10 + 1e-9);
      if (decile == last_decile) return;
      last_decile = decile;
      std::fprintf(stderr, "progress: t = %.6g / %.6g s (%d%%), step %.2g s, %.2fx real time, ETA %s\n", p.sim_time,
                   p.duration, decile * 10, p.step, rtf, format_duration(eta).c_str());
    }
  }
};

// What `vcsim check` resolved, and where each value came from: the file, a material pair, a default or a rule.
void print_resolved(const vcsim::Scenario& scenario, const vcsim::World& world) {
  std::cout << "bodies\n";
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const vcsim::RigidBody& b = world.bodies[i];
    const vcsim::BodySpec& spec = scenario.bodies[i];
    std::cout << "  " << b.name;
    // The cells the contact models see (a mesh with split: convex is one per piece).
    std::string cells;
    if (!b.geometry.cells.empty()) {
      const size_t n = b.geometry.cells.size();
      cells = "; " + std::to_string(n) + (n == 1 ? " cell (" : " cells (");
      for (size_t c = 0; c < n && c < 8; ++c) cells += (c ? ", " : "") + b.geometry.cells[c].name;
      cells += n > 8 ? ", ...)" : ")";
    }
    if (b.fixed) {
      std::cout << ": fixed" << (b.motion ? ", prescribed motion" : "") << cells << "\n";
      continue;
    }
    const Eigen::Vector3d moments = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia_body).eigenvalues();
    const Eigen::Vector3d com = b.com_offset.position;
    const char* mass_from = spec.mass ? "given" : "density x volume";
    const char* inertia_from = spec.inertia ? "given" : spec.mass ? "uniform body of the given mass, from the shape"
                                                                    : "density, from the shape";
    std::cout << ": mass " << b.mass << " kg (" << mass_from << "); centre of mass [" << com.x() << ", " << com.y()
              << ", " << com.z() << "] m in the body frame (" << (spec.center_of_mass_given ? "given" : spec.density || (spec.mass && !spec.inertia) ? "from the shape" : "body origin")
              << "); principal inertia [" << moments.x() << ", " << moments.y() << ", " << moments.z() << "] kg m^2 ("
              << inertia_from << ")" << cells << "\n";
  }
  if (!scenario.contacts.empty()) std::cout << "contacts\n";
  for (size_t k = 0; k < scenario.contacts.size(); ++k) {
    const vcsim::ContactSpec& c = scenario.contacts[k];
    std::cout << "  " << world.contacts[k].name << ": " << c.model << "\n";
    for (const auto& r : vcsim::contact::resolve_values(c.model, c.params)) {
      std::string origin = r.origin;
      if (origin == "given") origin = c.origin.count(r.name) ? c.origin.at(r.name) : "given";
      if (origin == "= mu" && c.origin.count("mu")) origin += ", " + c.origin.at("mu");
      std::printf("    %-11s %-12.6g %-8s %s\n", r.name.c_str(), r.value, r.units.c_str(), origin.c_str());
    }
  }
}

int print_input_error(const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 2;
}

// Debian's interpreter, which has python3-h5py and python3-matplotlib (a pyenv python may not).
std::string debian_python() { return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

struct PlotCli {
  std::string file, dir, size;
  int max_pairs = 0, max_bodies = 0;
};

int run_plot(const PlotCli& cli) {
  const char* env = std::getenv("VCSIM_VCPLOT");
  const std::string script = env ? env : std::string(VCSIM_SOURCE_DIR) + "/tools/vcplot";
  const std::string python = debian_python();
  std::vector<std::string> args = {python, script, cli.file};
  if (!cli.dir.empty()) args.insert(args.end(), {"-o", cli.dir});
  if (cli.max_pairs > 0) args.insert(args.end(), {"--max-pairs", std::to_string(cli.max_pairs)});
  if (cli.max_bodies > 0) args.insert(args.end(), {"--max-bodies", std::to_string(cli.max_bodies)});
  if (!cli.size.empty()) args.insert(args.end(), {"--size", cli.size});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execvp(python.c_str(), argv.data());
  std::cerr << "error: cannot run python3 " << script << ": " << std::strerror(errno) << "\n";
  return 1;
}

// The energy line's verdict (docs/conventions.md, "Energy tolerance"): round-off, plus what the friction bristles
// held (their springs are outside the bookkeeping and give back what they stored when a stuck contact slips).
// relative: the budget's factor, 1e-9 (round-off) for the fixed steps, rel_tol for the adaptive integrators (whose
// states, and so the energy, are right to rel_tol; docs/conventions.md).
std::string energy_verdict(const vcsim::RunSummary& s, double relative) {
  if (!s.passive) return " (scene has loads, prescribed motions, a varying gravity or torques: not checked)";
  const double budget = relative * std::max(1.0, std::abs(s.initial_energy.total()));
  std::ostringstream m;
  m.precision(3);
  const bool round_off = relative <= 1e-9;
  std::ostringstream budget_text;
  budget_text.precision(3);
  if (round_off) budget_text << "round-off (1e-9 relative)";
  else budget_text << "the integration tolerance (" << relative << " relative)";
  if (s.max_energy_increase <= budget) {
    m << " (never increased, within the " << (round_off ? "1e-9 relative round-off budget)" : "rel_tol budget)");
  } else if (s.max_energy_increase <= budget + s.max_bristle_energy) {
    m << " (never increased beyond " << (round_off ? "round-off" : "the integration tolerance") << " plus the "
      << s.max_bristle_energy << " J the friction bristles held at most; docs/conventions.md)";
  } else {
    m << " (INCREASED beyond " << budget_text.str() << " plus the " << s.max_bristle_energy
      << " J the bristles held; docs/conventions.md)";
  }
  return m.str();
}


// Runs a command and waits for it; returns its exit status (1 if it could not run or was killed).
// A Ctrl-C stops the child; this process outlives it to clean up.
int run_and_wait(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto previous = std::signal(SIGINT, SIG_IGN);
  const pid_t pid = fork();
  if (pid < 0) {
    std::signal(SIGINT, previous);
    std::cerr << "error: fork: " << std::strerror(errno) << "\n";
    return 1;
  }
  if (pid == 0) {
    std::signal(SIGINT, SIG_DFL);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  std::signal(SIGINT, previous);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

struct ExportCli {
  std::string file, dir;
  int frames = 100, resolution = 64;
  double adaptivity = 0.01;
  bool quiet = false;
};

int run_export(const ExportCli& cli) {
  vcsim::viz::ExportOptions o;
  o.input = cli.file;
  o.output_dir = cli.dir;
  o.frames = cli.frames;
  o.resolution = cli.resolution;
  o.adaptivity = cli.adaptivity;
  o.quiet = cli.quiet;
  try {
    const auto s = vcsim::viz::export_vtk(o);
    long triangles = 0;
    for (long t : s.triangles) triangles += t;
    std::cout << "scenario   " << s.scenario_name << " (" << cli.file << ")\n"
              << "meshes     " << s.bodies.size() << " bodies, " << triangles << " triangles (OpenVDB, "
              << s.mesh_seconds << " s)\n"
              << "frames     " << s.frames << " from t = " << s.frame_times.front() << " to "
              << s.frame_times.back() << " s (" << s.files << " files, " << s.write_seconds << " s)\n"
              << "output     " << s.pvd << " (open in ParaView)\n";
    return 0;
  } catch (const vcsim::viz::BadOutputFile& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

struct AnimateCli {
  std::string file, output, export_dir, png_dir, camera = "auto", size = "640x480";
  int frames = 60, resolution = 48;
  double fps = 15, elev = 22, azim = -55;
};

int run_animate(const AnimateCli& cli) {
  namespace fs = std::filesystem;
  vcsim::viz::ExportOptions o;
  o.input = cli.file;
  o.frames = cli.frames;
  o.resolution = cli.resolution;
  o.adaptivity = 0.01;
  o.quiet = true;
  const bool temporary = cli.export_dir.empty();
  o.output_dir = temporary ? (fs::temp_directory_path() / ("vcsim_animate_" + std::to_string(getpid()))).string()
                           : cli.export_dir;
  if (temporary) fs::remove_all(o.output_dir);  // what a killed run with the same pid left (pids wrap)
  vcsim::viz::ExportSummary s;
  try {
    s = vcsim::viz::export_vtk(o);
  } catch (const vcsim::viz::BadOutputFile& e) {
    std::cerr << e.what() << "\n";
    if (temporary) fs::remove_all(o.output_dir);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    if (temporary) fs::remove_all(o.output_dir);
    return 1;
  }
  const std::string output =
      cli.output.empty() ? fs::path(cli.file).replace_extension("").string() + ".gif" : cli.output;
  const char* env = std::getenv("VCSIM_VCANIMATE");
  const std::string script = env ? env : std::string(VCSIM_SOURCE_DIR) + "/tools/vcanimate";
  std::vector<std::string> args = {debian_python(), script, s.pvd, "-o", output, "--title", s.scenario_name,
                                   "--fps", std::to_string(cli.fps), "--size", cli.size, "--camera", cli.camera,
                                   "--elev", std::to_string(cli.elev), "--azim", std::to_string(cli.azim)};
  if (!cli.png_dir.empty()) args.insert(args.end(), {"--png-dir", cli.png_dir});
  const int status = run_and_wait(args);
  if (temporary) fs::remove_all(o.output_dir);
  return status;
}

struct RunCli {
  std::string file, output;
  std::vector<std::string> overrides;
  int threads = 0;
  double dump_vdb = -1;
  bool quiet = false, strict = false;
};

// `vcsim run` and `vcsim check`: load, build, preflight; then run (unless only checking) and print the summary.
int run_scenario(const RunCli& cli, bool check_only) {
  std::unique_ptr<tbb::global_control> thread_cap;
  if (cli.threads > 0)
    thread_cap = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, cli.threads);

  vcsim::Scenario scenario;
  vcsim::BuiltWorld built;
  vcsim::PreflightReport preflight;
  try {
    scenario = vcsim::load_scenario(cli.file, cli.overrides);
    built = vcsim::build_world(scenario);
    preflight = vcsim::preflight(scenario, built);
  } catch (const vcsim::LocatedError& e) {  // the loader's, the geometry's and the contact models'
    return print_input_error(e);
  } catch (const std::exception& e) {
    std::cerr << cli.file << ": error: " << e.what() << "\n";
    return 2;
  }

  // Warnings before a wrong answer (engine/preflight.h, docs/reliability.md): printed, stored in the output, and
  // errors under --strict.
  std::vector<std::string> warnings;
  for (const auto& w : preflight.warnings) {
    warnings.push_back(w.text());
    std::cerr << (cli.strict ? vcsim::format_located(w.where, w.message) : w.text()) << "\n";
  }
  if (cli.strict && !warnings.empty()) {
    std::cerr << "error: " << warnings.size() << " warning(s) with --strict; nothing run\n";
    return 2;
  }

  if (check_only) {
    std::cout << cli.file << ": ok (" << scenario.bodies.size() << " bodies, " << scenario.contacts.size()
              << " contacts, " << built.world.state_size() << " states"
              << (warnings.empty() ? "" : ", " + std::to_string(warnings.size()) + " warning(s)") << ")\n";
    print_resolved(scenario, built.world);
    return 0;
  }

  vcsim::RunOptions options;
  options.output_path = cli.output.empty() ? scenario.output_file : cli.output;
  options.stop_requested = &g_stop;
  options.dump_vdb_time = cli.dump_vdb;
  options.dump_vdb_prefix = std::filesystem::path(options.output_path).replace_extension("").string();
  options.warnings = warnings;
  options.guard = &preflight.guard;
  ProgressReporter progress;
  if (!cli.quiet) options.on_progress = [&](const vcsim::Progress& p) { progress(p); };
  std::signal(SIGINT, on_sigint);

  vcsim::RunSummary s;
  try {
    s = vcsim::run_simulation(scenario, built, options);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  const int used_threads = cli.threads > 0 ? cli.threads : tbb::info::default_concurrency();
  std::cout << "scenario   " << scenario.name << " (" << cli.file << ")\n"
            << "status     " << s.status << "\n"
            << "simulated  " << s.sim_time << " s in " << describe_steps(scenario, s) << ", " << s.rhs_evaluations
            << " right-hand-side evaluations\n"
            << "wall time  " << s.wall_time << " s (" << (s.wall_time > 0 ? s.sim_time / s.wall_time : 0)
            << "x real time, " << used_threads << " threads)\n"
            << "energy     total " << s.initial_energy.total() << " J -> " << s.final_energy.total()
            << " J; largest rise " << s.max_energy_increase << " J"
            << energy_verdict(s, scenario.adaptive ? std::max(1e-9, scenario.adaptive_settings.rel_tol) : 1e-9)
            << "\n"
            << "output     " << options.output_path << " (" << s.samples << " samples)\n";
  for (const std::string& w : s.run_warnings) std::cerr << w << "\n";
  if (!scenario.impulses.empty())  // scripted impulses are external work: the energy line starts over after each
    std::cout << "impulses   " << s.impulses_applied << " applied (/impulses in the output; the energy rise is "
              << "measured from the state after each)\n";
  if (cli.dump_vdb >= 0)
    std::cout << "vdb        " << s.vdb_files << " interference region(s) at t = " << cli.dump_vdb << " s, "
              << options.dump_vdb_prefix << "_*.vdb\n";
  if (s.failed) {
    std::cerr << "error: " << s.failure_message << "\n";
    return 1;
  }
  return s.status == "interrupted" ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vcsim: multibody simulation with volumetric contact (Gonthier 2007)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("vcsim ") + VCSIM_VERSION + " (" + VCSIM_GIT_REVISION + ")");

  RunCli rc;

  auto* run = app.add_subcommand("run", "Simulate a scenario file into an HDF5 output");
  run->add_option("file", rc.file, "Scenario file (YAML)")->required();
  run->add_option("-o,--output", rc.output, "Output HDF5 file (default: the scenario's output.file)");
  run->add_option("--set", rc.overrides, "Override a scenario value, e.g. --set bodies.ball.velocity=[0,0.3,0]");
  run->add_option("--threads", rc.threads, "Cap on TBB worker threads (default: all cores)")->check(CLI::PositiveNumber);
  run->add_option("--dump-vdb", rc.dump_vdb, "Write the voxelized interference regions at this time (s) as .vdb files");
  run->add_flag("-q,--quiet", rc.quiet, "No progress output");
  run->add_flag("--strict", rc.strict, "Treat every warning as an error (run nothing)");

  auto* check = app.add_subcommand("check", "Validate a scenario file without running it");
  check->add_option("file", rc.file, "Scenario file (YAML)")->required();
  check->add_option("--set", rc.overrides, "Override a scenario value");
  check->add_flag("--strict", rc.strict, "Treat every warning as an error");

  PlotCli pc;
  auto* plot = app.add_subcommand("plot", "Write PNG figures from an output file (tools/vcplot)");
  plot->add_option("file", pc.file, "vcsim HDF5 output")->required();
  plot->add_option("-o,--output-dir", pc.dir, "Directory for the figures (default: OUT-plots/)");
  plot->add_option("--max-pairs", pc.max_pairs, "Plot at most this many contact pairs, the busiest (default 6)")
      ->check(CLI::PositiveNumber);
  plot->add_option("--max-bodies", pc.max_bodies, "Plot at most this many moving bodies (default 6)")
      ->check(CLI::PositiveNumber);
  plot->add_option("--size", pc.size, "Figure size in pixels, WxH (default 1200x900)");

  ExportCli ex;
  auto* exp = app.add_subcommand("export", "Write ParaView files (.vtp meshes per frame + .pvd) from an output file");
  exp->add_option("file", ex.file, "vcsim HDF5 output")->required();
  exp->add_option("-o,--output-dir", ex.dir, "Directory for the files (default: OUT-vtk/)");
  exp->add_option("--frames", ex.frames, "At most this many frames, evenly spaced in time (default 100)")
      ->check(CLI::PositiveNumber);
  exp->add_option("--resolution", ex.resolution, "Voxels along each body's largest extent (default 64)")
      ->check(CLI::Range(8, 1024));
  exp->add_option("--adaptivity", ex.adaptivity, "OpenVDB volumeToMesh adaptivity 0..1: larger, fewer triangles (default 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  exp->add_flag("-q,--quiet", ex.quiet, "No progress output");

  AnimateCli an;
  auto* anim = app.add_subcommand("animate", "Render an animated GIF/MP4 of the bodies and contact forces");
  anim->add_option("file", an.file, "vcsim HDF5 output")->required();
  anim->add_option("-o,--output", an.output, "Animation file: .gif (Pillow) or .mp4 (ffmpeg) (default: OUT.gif)");
  anim->add_option("--frames", an.frames, "At most this many frames (default 60)")->check(CLI::PositiveNumber);
  anim->add_option("--fps", an.fps, "Frames per second of the animation (default 15)")->check(CLI::PositiveNumber);
  anim->add_option("--resolution", an.resolution, "Voxels along each body's largest extent (default 48)")
      ->check(CLI::Range(8, 512));
  anim->add_option("--size", an.size, "Frame size in pixels, WxH (default 640x480)");
  anim->add_option("--camera", an.camera, "auto, fixed (whole motion in view) or follow (tracks the free bodies)")
      ->check(CLI::IsMember({"auto", "fixed", "follow"}));
  anim->add_option("--elev", an.elev, "Camera elevation above the x-y plane, degrees (default 22)");
  anim->add_option("--azim", an.azim, "Camera azimuth about z from +x, degrees (default -55)");
  anim->add_option("--png-dir", an.png_dir, "Also keep the PNG frames in this directory");
  anim->add_option("--export-dir", an.export_dir, "Keep the exported .vtp/.pvd files in this directory");

  vcsim::sweep::Options sw;
  auto* swp = app.add_subcommand("sweep", "Run a parameter sweep or Monte Carlo campaign (docs/sweeps.md); also under mpirun");
  swp->add_option("file", sw.file, "Sweep file (YAML)")->required();
  swp->add_option("-o,--output", sw.output, "Output HDF5 table (default: the sweep's output, else <sweep stem>.h5)");
  swp->add_option("--jobs", sw.jobs, "Runs at once on this machine/rank, each with 1 thread (default: cores / ranks on the node)")
      ->check(CLI::PositiveNumber);
  swp->add_option("--threads-per-run", sw.threads_per_run,
                  "TBB threads of each run (default 1; tables are bit-identical across --jobs/ranks only with 1)")
      ->check(CLI::PositiveNumber);
  swp->add_flag("--resume", sw.resume, "Continue an interrupted campaign: finished runs are not redone");
  swp->add_flag("--check", sw.check_only, "Validate the sweep file and every run's scenario; run nothing");
  swp->add_flag("-q,--quiet", sw.quiet, "No per-run lines");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (plot->parsed()) return run_plot(pc);
  if (exp->parsed()) return run_export(ex);
  if (swp->parsed()) return vcsim::sweep::run_sweep(sw);
  if (anim->parsed()) return run_animate(an);

  return run_scenario(rc, check->parsed());
}
