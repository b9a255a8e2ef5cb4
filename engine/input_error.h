// Bad scenario input: one clear, one-line error that points back into the file.
// what() is "FILE:LINE:COLUMN: error: KEY.PATH: expected ...; got ..." (line/column 1-based).
// When the position is unknown (line <= 0), the position part is left out: "FILE: error: ...".
// Errors in a command-line override carry "FILE: --set TEXT" as their file, so the user sees
// which override was wrong instead of a line number.
#pragma once
#include <stdexcept>
#include <string>

namespace vcsim {

inline std::string format_input_error(const std::string& file, int line, int column,
                                      const std::string& key_path, const std::string& expected,
                                      const std::string& severity = "error") {
  std::string msg = file.empty() ? std::string("<input>") : file;
  if (line > 0) msg += ":" + std::to_string(line) + ":" + std::to_string(column > 0 ? column : 1);
  msg += ": " + severity + ": ";
  if (!key_path.empty()) msg += key_path + ": ";
  return msg + expected;
}

// Geometry and contact errors (geo::GeometryError, contact::ContactError) state what was expected
// without the word ("a closed mesh ..., but ..."); front ends print them as "expected a closed mesh ...",
// like the loader's. Messages that already say "expected" are kept.
inline std::string with_expected(const std::string& text) {
  if (text.rfind("expected", 0) == 0 || text.find(": expected") != std::string::npos) return text;
  return "expected " + text;
}

// A setup that loads but is likely to give a wrong answer (docs/reliability.md, "Warnings"): printed as
// "FILE:LINE:COLUMN: warning: KEY.PATH: ...", stored in the output, and an error under --strict.
struct InputWarning {
  std::string file;
  int line = 0, column = 0;
  std::string key_path, message;
  std::string text() const { return format_input_error(file, line, column, key_path, message, "warning"); }
};

struct InputError : std::runtime_error {
  // `expected` is the text after the key path, conventionally "expected ...; got ...".
  InputError(const std::string& file, int line, int column, const std::string& key_path,
             const std::string& expected)
      : std::runtime_error(format_input_error(file, line, column, key_path, expected)),
        file(file),
        key_path(key_path),
        expected(expected),
        line(line),
        column(column) {}
  std::string file, key_path, expected;
  int line, column;
};

}  // namespace vcsim
