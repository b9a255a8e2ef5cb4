// Running a campaign: see tools/sweep/runner.h.
#include "tools/sweep/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <thread>

#ifdef VCSIM_HAVE_MPI
#include <mpi.h>
#endif

#include "tools/sweep/outcomes.h"

namespace vcsim::sweep {
namespace {

std::string sanitize(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return s;
}

pid_t spawn_run(const Campaign& c, const Paths& P, const std::string& exe, long run, int threads) {
  std::vector<std::string> args = {exe, "run", c.spec.base, "-o", P.series(run), "--threads", std::to_string(threads), "-q"};
  for (const auto& o : c.overrides(run)) args.insert(args.end(), {"--set", o});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = P.log(run);
  const pid_t parent = getpid();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The run dies with its driver (a killed campaign leaves no orphan writing into the work dir).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    signal(SIGINT, SIG_DFL);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    const int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, 0), close(nul);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

std::string last_error_line(const std::string& log) {
  bool ok = false;
  const std::string text = read_text(log, ok);
  std::string last, line;
  std::stringstream ss(text);
  while (std::getline(ss, line))
    if (line.find("error") != std::string::npos) last = line;
  return last;
}

RunResult finish_run(const Campaign& c, const Paths& P, long run, int wait_status, double wall, int rank) {
  RunResult r;
  r.index = run;
  r.wall = wall;
  r.rank = rank;
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    try {
      r.values = compute_outcomes(c, run, P.series(run));
      r.status = "completed";
    } catch (const std::exception& e) {
      r.status = std::string("failed: outcomes: ") + e.what();
    }
  } else if (WIFEXITED(wait_status)) {
    const std::string e = last_error_line(P.log(run));
    r.status = "failed: exit status " + std::to_string(WEXITSTATUS(wait_status)) + (e.empty() ? "" : ": " + e);
  } else {
    r.status = "failed: killed by signal " + std::to_string(WTERMSIG(wait_status));
  }
  if (r.status != "completed") {
    r.values.assign(c.spec.outcome_columns.size(), kNaN);
    if (c.spec.pass) r.values.back() = 0;
  } else {
    std::error_code ec;
    fs::remove(P.log(run), ec);
    if (!c.spec.keep_series) fs::remove(P.series(run), ec);
  }
  return r;
}

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

// Workers send kRequest (with the result of their last run, if any) and kBye; rank 0 answers kAssign.
enum Tag { kRequest = 1, kAssign = 2, kBye = 3 };

#ifdef VCSIM_HAVE_MPI
void send_text(int dest, int tag, const std::string& s) {
  MPI_Send(s.data(), int(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}
std::string recv_text(const MPI_Status& st) {
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string s(size_t(count), '\0');
  MPI_Recv(s.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}
#endif

volatile sig_atomic_t g_interrupted = 0;
extern "C" void vcsim_sweep_on_sigint(int) { g_interrupted = 1; }

// Rank 0 while the campaign runs.
struct Driver {
  const Options& opt;
  const Mpi& mpi;
  LocalPool& pool;
  Schedule& sch;
  int workers_alive;

  // Records a finished run: its result file (what --resume reads), its place in the table, its line.
  void record(const RunResult& r) {
    // After a Ctrl-C the runs were interrupted too (same process group): not a result, redo them on --resume.
    if (g_interrupted && r.status != "completed") {
      if (!opt.quiet) std::cout << "run " << r.index << " interrupted (not recorded)\n" << std::flush;
      return;
    }
    write_file_atomic(pool.P.result(r.index), encode(r));
    sch.results[size_t(r.index)] = r;
    ++sch.done;
    if (opt.quiet) return;
    const Campaign& c = pool.c;
    std::ostringstream line;
    line << "run " << r.index << " done [" << sch.done << "/" << c.runs << "] " << r.status << " in " << fmt_short(r.wall)
         << " s" << (mpi.size > 1 ? " (rank " + std::to_string(r.rank) + ")" : "");
    if (r.status == "completed")
      for (size_t k = 0; k < c.spec.outcome_columns.size(); ++k)
        line << (k ? ", " : ": ") << c.spec.outcome_columns[k] << " = " << fmt_short(r.values[k]);
    std::cout << line.str() << "\n";
    std::cout.flush();
  }

  // Starts pending runs on this rank's free slots; returns whether it started any.
  bool start_local() {
    bool started = false;
    while (!g_interrupted && !pool.full() && !sch.pending.empty()) {
      const long r = sch.pending.front();
      sch.pending.pop_front();
      if (!opt.quiet) std::cout << "run " << r << " start\n" << std::flush;
      pool.start(r);
      started = true;
    }
    return started;
  }

  // Answers the worker ranks: records the result that a request carries and assigns the next run (-1:
  // none, stop). Returns whether there were any messages.
  bool serve_workers() {
    bool any = false;
#ifdef VCSIM_HAVE_MPI
    if (!mpi.active) return false;
    int flag = 0;
    MPI_Status st;
    while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), flag) {
      any = true;
      const std::string msg = recv_text(st);
      if (st.MPI_TAG == kBye) {
        --workers_alive;
        continue;
      }
      if (!msg.empty()) {
        if (auto rr = decode(msg, pool.c.spec.outcome_columns.size())) record(*rr);
      }
      long next = -1;
      if (!g_interrupted && !sch.pending.empty()) {
        next = sch.pending.front();
        sch.pending.pop_front();
        if (!opt.quiet) std::cout << "run " << next << " start (rank " << st.MPI_SOURCE << ")\n" << std::flush;
      }
      MPI_Send(&next, 1, MPI_LONG, st.MPI_SOURCE, kAssign, MPI_COMM_WORLD);
    }
#endif
    return any;
  }
};

}  // namespace

void mpi_init(Mpi& m) {
#ifdef VCSIM_HAVE_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m.rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &m.local_size);
  MPI_Comm_free(&local);
  m.active = true;
#else
  (void)m;
#endif
}

void mpi_finalize(Mpi& m) {
#ifdef VCSIM_HAVE_MPI
  if (m.active) MPI_Finalize();
#endif
  m.active = false;
}

int mpi_broadcast_int(const Mpi& m, int v) {
#ifdef VCSIM_HAVE_MPI
  if (m.active && m.size > 1) MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#else
  (void)m;
#endif
  return v;
}

void LocalPool::start(long run) {
  Child ch;
  ch.run = run;
  ch.start = Clock::now();
  ch.pid = spawn_run(c, P, exe, run, threads);
  running.push_back(ch);
}

std::vector<RunResult> LocalPool::reap() {
  std::vector<RunResult> out;
  for (size_t i = 0; i < running.size();) {
    int st = 0;
    const pid_t w = waitpid(running[i].pid, &st, WNOHANG);
    if (w == running[i].pid) {
      const double wall = std::chrono::duration<double>(Clock::now() - running[i].start).count();
      out.push_back(finish_run(c, P, running[i].run, st, wall, rank));
      running.erase(running.begin() + long(i));
    } else {
      ++i;
    }
  }
  return out;
}

void catch_interrupts() {
  std::signal(SIGINT, vcsim_sweep_on_sigint);
  std::signal(SIGTERM, vcsim_sweep_on_sigint);
}

bool run_pending(const Options& opt, const Mpi& mpi, LocalPool& pool, Schedule& sch) {
  Driver d{opt, mpi, pool, sch, mpi.size - 1};
  try {
    while (sch.done < pool.c.runs || d.workers_alive > 0 || !pool.running.empty()) {
      bool idle = !d.start_local();
      for (const auto& r : pool.reap()) d.record(r), idle = false;
      if (d.serve_workers()) idle = false;
      if (g_interrupted && pool.running.empty() && d.workers_alive == 0) break;
      if (g_interrupted && pool.running.empty() && !mpi.active) break;
      if (idle) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
#ifdef VCSIM_HAVE_MPI
    // The other ranks are waiting for run indices: stop the whole job (finished runs stay recorded).
    if (mpi.active && mpi.size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    return false;
  }
  return !g_interrupted;
}

void worker_loop(LocalPool& pool) {
#ifdef VCSIM_HAVE_MPI
  int outstanding = 0, stopped = 0;
  for (int j = 0; j < pool.jobs; ++j) send_text(0, kRequest, ""), ++outstanding;
  while (true) {
    bool idle = true;
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(0, kAssign, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      idle = false;
      long run = -1;
      MPI_Recv(&run, 1, MPI_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      --outstanding;
      if (run < 0) ++stopped;
      else pool.start(run);
    }
    for (const auto& r : pool.reap()) {
      idle = false;
      send_text(0, kRequest, encode(r));
      ++outstanding;
    }
    if (stopped == pool.jobs && pool.running.empty() && outstanding == 0) break;
    if (idle) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  send_text(0, kBye, "");
#else
  (void)pool;
#endif
}

std::string encode(const RunResult& r) {
  std::string s = std::to_string(r.index) + "\t" + fmt17(r.wall) + "\t" + std::to_string(r.rank);
  for (double v : r.values) s += "\t" + fmt17(v);
  return s + "\t" + sanitize(r.status) + "\n";
}

std::optional<RunResult> decode(const std::string& line, size_t ncols) {
  std::vector<std::string> f;
  std::string cur;
  std::stringstream ss(line);
  while (std::getline(ss, cur, '\t')) f.push_back(cur);
  if (f.size() != ncols + 4) return std::nullopt;
  RunResult r;
  try {
    r.index = std::stol(f[0]);
    r.wall = std::stod(f[1]);
    r.rank = std::stoi(f[2]);
    for (size_t i = 0; i < ncols; ++i) r.values.push_back(f[3 + i] == "nan" || f[3 + i] == "-nan" ? kNaN : std::stod(f[3 + i]));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  r.status = f.back();
  if (!r.status.empty() && r.status.back() == '\n') r.status.pop_back();
  return r;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
    o.flush();
    if (!o) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
}

}  // namespace vcsim::sweep
