// The expression language of a sweep file (docs/sweeps.md): the `pass` predicate and `expression` outcomes,
// over the table's columns. Numbers, column names, + - * /, < <= > >= == !=, && || ! (or and, or, not)
// and parentheses.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vcsim::sweep {

struct Expr {
  enum Kind { Num, Var, Neg, Not, Bin } kind = Num;
  double value = 0;
  std::string op, var;
  std::unique_ptr<Expr> l, r;
};

// Parses all of `text`. On a syntax error returns null and sets `error` to what was expected there,
// e.g. "')' at character 7".
std::unique_ptr<Expr> parse_expression(const std::string& text, std::string& error);

// Appends the column names that `e` reads.
void collect_vars(const Expr& e, std::vector<std::string>& out);

// The value of `e`, with `vars` holding every name it reads; comparisons and logic give 1 or 0.
double eval(const Expr& e, const std::map<std::string, double>& vars);

}  // namespace vcsim::sweep
