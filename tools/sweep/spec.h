// Reading a sweep file (docs/sweeps.md, "The sweep file"): its keys, the base scenario, `fixed`, and the
// parameters with their distributions. The outcomes and `pass` are read later, once the base scenario's
// bodies and pairs are known (parse_outcomes, tools/sweep/outcomes.h). Every error is an InputError that
// points into the sweep file: the helpers below make them, for the outcomes too.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/io/yaml_reader.h"
#include "tools/sweep/sweep_internal.h"

namespace vcsim::sweep {

// Throws InputError; errno is the reason when the file or the base scenario cannot be read.
Spec parse_spec(const std::string& file);

// ---- helpers for errors that point into the sweep file

[[noreturn]] void fail(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& expected);

// How a node reads in a message, as in the scenario loader's (engine/io/yaml_reader.h).
using io::describe;

// "; did you mean 'X'?" for the option nearest to `got` (engine/io/yaml_reader.h), else "".
inline std::string did_you_mean(const std::string& got, const std::vector<std::string>& options) {
  return io::with_hint("", got, options);
}

// `map` is a map (of `what`) with each key once, every key one of `allowed`.
void check_keys(const Spec& s, const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                const std::string& what);

// `value` (read from node n) is one of `options`: "expected WHAT (OPTIONS); got 'VALUE'; did you mean ...".
void expect_one_of(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& value,
                   const std::vector<std::string>& options, const std::string& what);

double number(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& what = "a number");
std::string string_of(const Spec& s, const YAML::Node& n, const std::string& path, const std::string& what);

// The value of `key` in `map`; an undefined node when there is none.
YAML::Node find(const YAML::Node& map, const std::string& key);

// Letters, digits and '_', not starting with a digit.
bool valid_column(const std::string& s);

// An expression (tools/sweep/expr.h) over the columns known so far: the pass predicate, an expression outcome.
std::shared_ptr<const Expr> parse_checked(const Spec& s, const YAML::Node& n, const std::string& key,
                                          const std::string& what, const std::set<std::string>& columns);

}  // namespace vcsim::sweep
