// Shared by the geometry benchmarks (Release builds; speed lives here, not in tests): one-primitive cells and the
// median wall time of a repeated call.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "geometry/interference.h"

namespace bench {

// A cell of one primitive, made the way scenario files make them.
inline vcsim::geo::Cell one_cell(const vcsim::geo::Primitive& p) {
  vcsim::geo::CsgNode n;
  n.primitive = p;
  n.where.key_path = "bench";
  return vcsim::geo::make_body_geometry(n, "").cells.at(0);
}

// Median microseconds per call over at least `min_runs` calls and `min_seconds` of calls (at most 2001 calls).
inline double median_us(const std::function<void()>& f, size_t min_runs = 7, double min_seconds = 0.2) {
  std::vector<double> t;
  const auto start = std::chrono::steady_clock::now();
  while (t.size() < min_runs ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < min_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6);
    if (t.size() > 2001) break;
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

}  // namespace bench
