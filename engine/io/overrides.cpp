#include "engine/io/overrides.h"

namespace vcsim::io {
namespace {

// "a.b[2].c" or "a.b.2.c" -> segments {a, b, 2, c} (list indices as decimal strings).
std::vector<std::string> split_path(const std::string& path, bool& ok) {
  std::vector<std::string> segs;
  std::string cur;
  ok = true;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (cur.empty() && (segs.empty() || path[i - 1] != ']')) ok = false;
      if (!cur.empty()) segs.push_back(cur);
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) segs.push_back(cur);
      cur.clear();
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) {
        ok = false;
        return segs;
      }
      const std::string idx = path.substr(i + 1, close - i - 1);
      if (idx.find_first_not_of("0123456789") != std::string::npos) ok = false;
      segs.push_back(idx);
      i = close;
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    segs.push_back(cur);
  else if (path.empty() || path.back() == '.')
    ok = false;
  return segs;
}

bool is_index(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

Override apply_override(YAML::Node& root, const std::string& text, const std::string& file) {
  const std::string where = file + ": --set " + text;
  const size_t eq = text.find('=');
  std::string path = eq == std::string::npos ? text : text.substr(0, eq);
  path.erase(0, path.find_first_not_of(" \t"));
  path.erase(path.find_last_not_of(" \t") + 1);
  if (eq == std::string::npos || path.empty())
    throw InputError(where, 0, 0, path, "expected KEY.PATH=VALUE (e.g. bodies.ball.velocity=[0,0.3,0]); got no '='");
  bool ok = true;
  const std::vector<std::string> segs = split_path(path, ok);
  if (!ok || segs.empty())
    throw InputError(where, 0, 0, path,
                     "expected a key path of names separated by '.', list items as [N]; got '" + path + "'");
  const std::string value_text = text.substr(eq + 1);
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw InputError(where, 0, 0, path, "expected a YAML value after '='; got '" + value_text + "' (" + e.msg + ")");
  }
  if (value_text.find_first_not_of(" \t") == std::string::npos)
    throw InputError(where, 0, 0, path, "expected a YAML value after '='; got nothing");

  YAML::Node cur;
  cur.reset(root);
  std::string canon;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    const bool last = i + 1 == segs.size();
    const std::string parent = canon;
    if (cur.IsSequence()) {
      if (!is_index(seg))
        throw InputError(where, 0, 0, child_path(parent, seg),
                         "expected a list index [N] after " + parent + " (a list); got '" + seg + "'");
      const size_t idx = parse_index(seg);
      canon = idx == kNotAnIndex ? parent + "[" + seg + "]" : index_path(parent, idx);
      if (idx > cur.size() || (!last && idx == cur.size()))
        throw InputError(where, 0, 0, canon,
                         "expected an index below " + std::to_string(cur.size()) + " (" + parent + " has " +
                             std::to_string(cur.size()) + " items); got " + seg);
      if (last) {
        if (idx == cur.size())
          cur.push_back(value);
        else
          cur[idx] = value;
      } else {
        YAML::Node next = cur[idx];
        cur.reset(next);
      }
      continue;
    }
    canon = child_path(parent, seg);
    if (!cur.IsMap() && !cur.IsNull())
      throw InputError(where, 0, 0, canon,
                       "expected " + (parent.empty() ? std::string("the document") : parent) +
                           " to be a map or list to descend into; got " + describe(cur));
    YAML::Node existing = YamlReader::find(cur, seg);
    if (last) {
      if (existing.IsDefined())
        existing = value;  // replaces in place (Node assignment rebinds the value)
      else
        cur[seg] = value;
      break;
    }
    if (!existing.IsDefined()) {
      // Named collections must already hold the name: a typo must not silently create a new body.
      if (parent == "bodies" || parent == "materials") {
        std::vector<std::string> names;
        if (cur.IsMap())
          for (auto it = cur.begin(); it != cur.end(); ++it) names.push_back(it->first.Scalar());
        const std::string msg = with_hint(
            "expected the name of an existing entry of " + parent + " (" + join_list(names) + "); got '" + seg + "'",
            seg, names);
        throw InputError(where, 0, 0, canon, msg);
      }
      // Build the missing part bottom-up from fresh nodes and attach it once. (Creating an empty map, then
      // descending into it and creating the next, left yaml-cpp 0.7 with a dangling node that crashed the
      // emitter: "--set a.b.c=1", found by fuzzing, issue 8.) An index creates a list, whose only valid
      // index is 0.
      if (parent.empty() && (seg == "bodies" || seg == "materials"))
        throw InputError(
            where, 0, 0, child_path(canon, segs[i + 1]),
            "expected the name of an existing entry of " + seg + " (there are none); got '" + segs[i + 1] + "'");
      std::string rest = canon;
      for (size_t j = i + 1; j < segs.size(); ++j) {
        const std::string list = rest;
        rest = is_index(segs[j]) ? rest + "[" + segs[j] + "]" : child_path(rest, segs[j]);
        if (is_index(segs[j]) && segs[j].find_first_not_of('0') != std::string::npos)
          throw InputError(where, 0, 0, rest, "expected index 0 of " + list + " (a new list, 0 items); got " + segs[j]);
      }
      YAML::Node nested = YAML::Clone(value);
      for (size_t j = segs.size() - 1; j > i; --j) {
        YAML::Node wrap(is_index(segs[j]) ? YAML::NodeType::Sequence : YAML::NodeType::Map);
        if (is_index(segs[j]))
          wrap.push_back(nested);
        else
          wrap[segs[j]] = nested;
        nested.reset(wrap);
      }
      cur[seg] = nested;
      canon = rest;
      break;
    }
    cur.reset(existing);
  }
  return Override{canon, text};
}

}  // namespace vcsim::io
