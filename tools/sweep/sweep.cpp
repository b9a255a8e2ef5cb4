// `vcsim sweep` (tools/sweep/sweep.h, docs/sweeps.md): the stages in order. The sweep file is read
// (spec.cpp), its runs generated and every run's scenario checked (campaign.cpp) with the outcomes read
// against it (outcomes.cpp); the runs run as child processes, shared among MPI ranks (runner.cpp), each
// measured as it finishes (outcomes.cpp); the table is written and summed up (table.cpp).
#include "tools/sweep/sweep.h"

#include <algorithm>
#include <iostream>
#include <thread>

#include "engine/input_error.h"
#include "tools/sweep/campaign.h"
#include "tools/sweep/runner.h"
#include "tools/sweep/spec.h"
#include "tools/sweep/table.h"

namespace vcsim::sweep {
namespace {

// The campaign of the sweep file, every run checked, and where its files go. Throws InputError (or
// another exception) on bad input.
void load_campaign(const Options& opt, Campaign& c, Paths& P) {
  c.spec = parse_spec(opt.file);
  generate_values(c);
  validate_runs(c);
  P.output = !opt.output.empty() ? opt.output
             : !c.spec.output.empty() ? c.spec.output
                                      : c.spec.name + ".h5";
  if (fs::path(P.output).extension() == ".yaml" || fs::path(P.output).extension() == ".yml")
    throw InputError(opt.file, 0, 0, "output", "expected an HDF5 output path; got '" + P.output + "'");
  P.work = (fs::path(P.output).parent_path() / (fs::path(P.output).stem().string() + ".runs")).string();
  if (fs::path(P.output).parent_path().empty()) P.work = fs::path(P.output).stem().string() + ".runs";
}

// Rank 0: the work directory, fresh, or with --resume keeping the runs that an interrupted campaign
// finished (a campaign.key of the same campaign). Fills the schedule; throws InputError for a work
// directory of another campaign, std::runtime_error when it cannot be written.
void prepare_work_dir(const Options& opt, const Campaign& c, const Paths& P, Schedule& sch) {
  std::error_code ec;
  fs::create_directories(P.work, ec);
  if (ec) throw std::runtime_error("cannot create the work directory " + P.work + ": " + ec.message());
  const std::string key_file = (fs::path(P.work) / "campaign.key").string();
  char key[32];
  std::snprintf(key, sizeof key, "%016llx\n", (unsigned long long)c.fingerprint);
  bool have_key = false;
  const std::string old_key = read_text(key_file, have_key);
  if (opt.resume && have_key && old_key != key)
    throw InputError(opt.file, 0, 0, "",
                     "expected --resume of the same campaign; got a work directory " + P.work +
                         " from a different sweep file, base scenario or parameter values (remove it or drop --resume)");
  if (!opt.resume || !have_key) {
    for (const auto& e : fs::directory_iterator(P.work)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("run_", 0) == 0 || n == "campaign.key") fs::remove(e.path(), ec);
    }
    write_file_atomic(key_file, key);
  }
  for (long r = 0; r < c.runs; ++r) {
    if (opt.resume) {
      bool ok = false;
      const std::string line = read_text(P.result(r), ok);
      if (ok)
        if (auto rr = decode(line, c.spec.outcome_columns.size()); rr && rr->index == r) {
          sch.results[size_t(r)] = *rr;
          ++sch.done;
          continue;
        }
    }
    sch.pending.push_back(r);
  }
}

void print_banner(const Options& opt, const Campaign& c, const Mpi& mpi, const LocalPool& pool, const Schedule& sch) {
  std::cout << "sweep      " << c.spec.name << " (" << opt.file << "): " << c.runs << " runs of " << c.spec.base
            << "\n"
            << "parallel   " << pool.jobs << " concurrent run(s)"
            << (mpi.size > 1 ? " per rank, " + std::to_string(mpi.size) + " MPI ranks" : "") << ", " << pool.threads
            << (pool.threads == 1 ? " thread" : " threads") << " each\n";
  if (opt.resume)
    std::cout << "resume     " << sch.done << " of " << c.runs << " runs already finished; running " << sch.pending.size()
              << "\n";
  std::cout.flush();
}

// Rank 0 once every run has finished: the table, the work directory gone (unless keep_series), the
// summary. Returns the exit status: 0 when every run completed.
int conclude(const Campaign& c, const Paths& P, const Schedule& sch, double wall) {
  std::vector<RunResult> table;
  for (const auto& r : sch.results) table.push_back(*r);
  try {
    write_table(c, P, table, wall);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (!c.spec.keep_series) {
    std::error_code ec;
    fs::remove_all(P.work, ec);
  }
  print_summary(c, P, table, wall);
  const bool all_completed =
      std::all_of(table.begin(), table.end(), [](const RunResult& r) { return r.status == "completed"; });
  return all_completed ? 0 : 1;
}

}  // namespace

int run_sweep(const Options& opt) {
  Mpi mpi;
  mpi_init(mpi);
  const bool root = mpi.rank == 0;
  auto finish = [&](int status) {
    mpi_finalize(mpi);
    return status;
  };
  // Workers see the same sweep file; only rank 0 reports errors.
  Campaign c;
  Paths P;
  try {
    load_campaign(opt, c, P);
  } catch (const InputError& e) {
    if (root) std::cerr << e.what() << "\n";
    return finish(2);
  } catch (const std::exception& e) {
    if (root) std::cerr << opt.file << ": error: " << e.what() << "\n";
    return finish(2);
  }
  if (opt.check_only) {
    if (root)
      std::cout << opt.file << ": ok (" << c.runs << " runs of " << c.spec.base << ", " << c.spec.params.size()
                << " parameters, " << c.spec.outcome_columns.size() << " outcome columns)\n";
    return finish(0);
  }

  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max(1, opt.threads_per_run);
  const int jobs = opt.jobs > 0 ? opt.jobs : std::max(1, cores / (std::max(1, mpi.local_size) * threads));
  const std::string exe = opt.self_exe.empty() ? fs::read_symlink("/proc/self/exe").string() : opt.self_exe;
  LocalPool pool{c, P, exe, jobs, mpi.rank, threads, {}};
  Schedule sch;
  sch.results.resize(size_t(c.runs));
  const auto t0 = Clock::now();
  int status = 0;
  if (root) {
    try {
      prepare_work_dir(opt, c, P, sch);
    } catch (const InputError& e) {
      std::cerr << e.what() << "\n";
      status = 2;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      status = 1;
    }
  }
  status = mpi_broadcast_int(mpi, status);
  if (status != 0) return finish(status);
  if (mpi.active && !root) {
    worker_loop(pool);
    return finish(mpi_broadcast_int(mpi, 0));  // rank 0's final status
  }

  catch_interrupts();
  print_banner(opt, c, mpi, pool, sch);
  const bool all_ran = run_pending(opt, mpi, pool, sch);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!all_ran) {
    std::cerr << "interrupted: " << sch.done << " of " << c.runs << " runs finished (recorded in " << P.work
              << "); continue with --resume\n";
    return finish(mpi_broadcast_int(mpi, 1));
  }
  return finish(mpi_broadcast_int(mpi, conclude(c, P, sch, wall)));
}

}  // namespace vcsim::sweep
