// The expression language of `pass` and `expression` outcomes: see tools/sweep/expr.h.
#include "tools/sweep/expr.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace vcsim::sweep {
namespace {

// Recursive descent, loosest binding first: or, and, not, comparison, sum, product, unary minus, primary.
struct ExprParser {
  const std::string& t;
  size_t i = 0;
  std::string error;
  void ws() {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  }
  bool eat(const std::string& tok) {
    ws();
    if (t.compare(i, tok.size(), tok) == 0) {
      // words must end at a word boundary
      if (std::isalpha(static_cast<unsigned char>(tok[0])) && i + tok.size() < t.size() &&
          (std::isalnum(static_cast<unsigned char>(t[i + tok.size()])) || t[i + tok.size()] == '_'))
        return false;
      i += tok.size();
      return true;
    }
    return false;
  }
  std::unique_ptr<Expr> bin(std::string op, std::unique_ptr<Expr> l, std::unique_ptr<Expr> r) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Bin;
    e->op = std::move(op);
    e->l = std::move(l);
    e->r = std::move(r);
    return e;
  }
  // `kind` (Neg, Not) of the operand that follows.
  std::unique_ptr<Expr> unary(Expr::Kind kind, std::unique_ptr<Expr> (ExprParser::*operand)()) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->l = (this->*operand)();
    return e->l ? std::move(e) : nullptr;
  }
  // A left-associative chain of `next` terms joined by `op` (also spelt `word`).
  std::unique_ptr<Expr> parse_logic(const char* op, const char* word, std::unique_ptr<Expr> (ExprParser::*next)()) {
    auto l = (this->*next)();
    while (l && (eat(op) || eat(word))) {
      auto r = (this->*next)();
      if (!r) return nullptr;
      l = bin(op, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<Expr> parse_or() { return parse_logic("||", "or", &ExprParser::parse_and); }
  std::unique_ptr<Expr> parse_and() { return parse_logic("&&", "and", &ExprParser::parse_not); }
  std::unique_ptr<Expr> parse_not() {
    ws();
    if ((t.compare(i, 1, "!") == 0 && t.compare(i, 2, "!=") != 0 && eat("!")) || eat("not"))
      return unary(Expr::Not, &ExprParser::parse_not);
    return parse_cmp();
  }
  std::unique_ptr<Expr> parse_cmp() {
    auto l = parse_sum();
    if (!l) return nullptr;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (eat(op)) {
        auto r = parse_sum();
        if (!r) return nullptr;
        return bin(op, std::move(l), std::move(r));
      }
    return l;
  }
  // A left-associative chain of `next` terms joined by the one-character operators in `ops`.
  std::unique_ptr<Expr> parse_chain(const char* ops, std::unique_ptr<Expr> (ExprParser::*next)()) {
    auto l = (this->*next)();
    while (l) {
      ws();
      if (i >= t.size() || !std::strchr(ops, t[i]) || t[i] == '\0') break;
      const std::string op(1, t[i++]);
      auto r = (this->*next)();
      if (!r) return nullptr;
      l = bin(op, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<Expr> parse_sum() { return parse_chain("+-", &ExprParser::parse_prod); }
  std::unique_ptr<Expr> parse_prod() { return parse_chain("*/", &ExprParser::parse_unary); }
  std::unique_ptr<Expr> parse_unary() {
    ws();
    if (i < t.size() && t[i] == '-') {
      ++i;
      return unary(Expr::Neg, &ExprParser::parse_unary);
    }
    return parse_primary();
  }
  std::unique_ptr<Expr> parse_primary() {
    ws();
    if (i >= t.size()) {
      error = "a number, a column name or '(' at the end";
      return nullptr;
    }
    if (t[i] == '(') {
      ++i;
      auto e = parse_or();
      if (!e) return nullptr;
      if (!eat(")")) {
        error = "')' at character " + std::to_string(i + 1);
        return nullptr;
      }
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.') {
      const char* start = t.c_str() + i;
      char* end = nullptr;
      const double v = std::strtod(start, &end);
      if (end == start) {
        error = "a number at character " + std::to_string(i + 1);
        return nullptr;
      }
      i += size_t(end - start);
      auto e = std::make_unique<Expr>();
      e->value = v;
      return e;
    }
    if (std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_') {
      const size_t s = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Var;
      e->var = t.substr(s, i - s);
      return e;
    }
    error = "a number, a column name or '(' at character " + std::to_string(i + 1) + " ('" + t.substr(i, 1) + "')";
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Expr> parse_expression(const std::string& text, std::string& error) {
  ExprParser ep{text, 0, {}};
  std::unique_ptr<Expr> e = ep.parse_or();
  ep.ws();
  if (e && ep.i != text.size()) {
    ep.error = "an operator or the end at character " + std::to_string(ep.i + 1) + " ('" + text.substr(ep.i) + "')";
    e.reset();
  }
  error = ep.error;
  return e;
}

void collect_vars(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Var) out.push_back(e.var);
  if (e.l) collect_vars(*e.l, out);
  if (e.r) collect_vars(*e.r, out);
}

double eval(const Expr& e, const std::map<std::string, double>& vars) {
  switch (e.kind) {
    case Expr::Num: return e.value;
    case Expr::Var: return vars.at(e.var);
    case Expr::Neg: return -eval(*e.l, vars);
    case Expr::Not: return eval(*e.l, vars) != 0 ? 0 : 1;  // NaN != 0 is true: not(NaN) = 0
    case Expr::Bin: break;
  }
  const double a = eval(*e.l, vars);
  if (e.op == "&&") return (a != 0 && !std::isnan(a) && eval(*e.r, vars) != 0) ? 1 : 0;
  if (e.op == "||") {
    if (a != 0 && !std::isnan(a)) return 1;
    const double b = eval(*e.r, vars);
    return (b != 0 && !std::isnan(b)) ? 1 : 0;
  }
  const double b = eval(*e.r, vars);
  if (e.op == "+") return a + b;
  if (e.op == "-") return a - b;
  if (e.op == "*") return a * b;
  if (e.op == "/") return a / b;
  if (e.op == "<") return a < b;
  if (e.op == "<=") return a <= b;
  if (e.op == ">") return a > b;
  if (e.op == ">=") return a >= b;
  if (e.op == "==") return a == b;
  if (e.op == "!=") return a != b && !std::isnan(a) && !std::isnan(b);
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace vcsim::sweep
