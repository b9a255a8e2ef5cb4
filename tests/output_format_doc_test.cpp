// docs/output-format.md is the user's description of the output and engine/output_format.h is the writer's: they must
// say the same thing (issue 20). Every dataset row of the doc's tables against output_columns() for a layout with one
// of everything, in both directions, with shape, type and units; the root attributes `format` and `format_version`.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "engine/output_format.h"

namespace {

std::string read_doc() {
  std::ifstream in(std::string(VCSIM_SOURCE_DIR) + "/docs/output-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream ss(row.substr(1));
  for (std::string c; std::getline(ss, c, '|');) {
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
    out.push_back(c);
  }
  return out;
}

// The doc writes units for people (N·m); the writer for h5dump (N*m).
std::string plain_units(std::string u) {
  for (size_t k; (k = u.find("·")) != std::string::npos;) u.replace(k, std::string("·").size(), "*");
  return u;
}

struct DocRow {
  std::string shape, type, units;
};

// Dataset rows (`| `/path` | [N,3] | ...`) of every table, keyed by path, read by the table's own header.
std::map<std::string, DocRow> doc_datasets(const std::string& doc) {
  std::map<std::string, DocRow> rows;
  std::vector<std::string> header;
  std::stringstream ss(doc);
  for (std::string line; std::getline(ss, line);) {
    if (line.rfind("| Path", 0) == 0) header = cells(line);
    if (line.rfind("| `/", 0) != 0) continue;
    const std::vector<std::string> c = cells(line);
    DocRow r;
    for (size_t k = 0; k < c.size() && k < header.size(); ++k) {
      if (header[k] == "Shape") r.shape = c[k];
      if (header[k] == "Type") r.type = c[k];
      if (header[k] == "Units") r.units = plain_units(c[k]);
    }
    rows[c[0].substr(1, c[0].size() - 2)] = r;
  }
  return rows;
}

}  // namespace

TEST_CASE("docs/output-format.md lists exactly the datasets the writer makes, with their shapes, types and units",
          "[output][docs]") {
  using namespace vcsim;
  OutputLayout layout;
  layout.body_names = {"<body>"};
  layout.pairs.push_back({"<pair>", "<body>", "<body>", {}});
  layout.impulses.push_back({"<name>", "<body>", "at 1 s"});
  layout.step_size = true;
  std::map<std::string, DocRow> doc = doc_datasets(read_doc());
  REQUIRE(doc.size() > 10);  // the tables were found at all
  // Model channels are the models' own (contact::Channel), described per model below the table.
  REQUIRE(doc.erase("/contacts/<pair>/<channel>") == 1);

  for (const OutputColumn& c : output_columns(layout)) {
    INFO(c.path);
    REQUIRE(doc.count(c.path) == 1);
    const DocRow& d = doc[c.path];
    CHECK(d.shape == (c.rank2 ? "[N," + std::to_string(c.width) + "]" : std::string("[N]")));
    if (!d.type.empty()) CHECK(d.type == (c.is_uint8 ? "uint8" : "float64"));
    CHECK(d.units == c.units);
    doc.erase(c.path);
  }
  for (const auto& [path, row] : doc) FAIL_CHECK("the doc lists " << path << ", which the writer does not make");
}

TEST_CASE("docs/output-format.md states the format name and version the writer stamps", "[output][docs]") {
  const std::string doc = read_doc();
  CHECK(doc.find("| `format` | str | `\"" + std::string(vcsim::kOutputFormatName) + "\"` |") != std::string::npos);
  CHECK(doc.find("| `format_version` | float | `" + std::to_string(vcsim::kOutputFormatVersion) + "` |") !=
        std::string::npos);
}
